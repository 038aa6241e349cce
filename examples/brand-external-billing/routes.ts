// The brand billing plugin's operations: the standard reads (plans, subscriptions), checkout refused in favour of the
// brand's own shop, and the signed callback the billing system sends.

import {
  brandDirectoryService,
  defineRoute,
  kernelProblems,
  type PluginContext,
  Problem,
  type RouteDefinition,
  t,
} from '../../core/index.ts'
import { billingScopes, planSchema, Subscription } from '../../plugins/billing/contract.ts'
import { customerSuspensions } from '../../plugins/customers/contract.ts'
import { applyCallback, callbackParser } from './callbacks.ts'
import { externalBillingProblems } from './problems.ts'
import {
  delivered,
  findVisiblePlan,
  findVisibleSubscription,
  recordDelivery,
  toPlan,
  toSubscription,
  visiblePlans,
  visibleSubscriptions,
} from './repository.ts'
import { signatureHeader, verifyCallback } from './signature.ts'

/** What the routes need to know of the deployment. */
export interface RouteSettings {
  readonly secret: string
  /** The brand whose billing system sends the callbacks: plans land in it. Null: the installation's default brand. */
  readonly brandId: string | null
  readonly toleranceSeconds: number
  readonly checkoutUrl: string
  /** Largest callback body, in bytes. */
  readonly callbackLimitBytes: number
}

const CallbackAck = t.Object(
  {
    id: t.String(),
    duplicate: t.Boolean({
      description: 'True when this callback id was received before (nothing changed).',
    }),
    stale: t.Boolean({
      description:
        'True when the callback is older (`occurredAt`) than the newest one applied to its plan or subscription, so it was ignored; stop retrying it.',
    }),
  },
  { $id: 'BillingCallbackAck' },
)

/** The brand billing plugin's routes. */
export function brandBillingRoutes(context: PluginContext, settings: RouteSettings): RouteDefinition[] {
  const suspensions = context.use(customerSuspensions)
  const brands = context.use(brandDirectoryService)
  const Plan = planSchema(context.quotas)
  const parseCallback = callbackParser(context.quotas.limitsSchema)

  return [
    defineRoute({
      method: 'GET',
      path: '/plans',
      operationId: 'listPlans',
      summary: 'List plans (mirrored from the brand’s billing system)',
      scope: billingScopes.planRead,
      list: { item: Plan, key: 'brand_billing_plans.id', toItem: toPlan },
      handler: ({ view }) => visiblePlans(context.db, view),
    }),
    defineRoute({
      method: 'GET',
      path: '/plans/:id',
      operationId: 'getPlan',
      summary: 'Read a plan',
      scope: billingScopes.planRead,
      params: { id: 'pln' },
      responses: { 200: { description: 'The plan.', schema: Plan } },
      handler: async ({ params, view }) => toPlan(await findVisiblePlan(context.db, view, params.id)),
    }),
    defineRoute({
      method: 'GET',
      path: '/subscriptions',
      operationId: 'listSubscriptions',
      summary: 'List subscriptions',
      scope: billingScopes.read,
      list: { item: Subscription, key: 'brand_billing_subscriptions.id', toItem: toSubscription },
      handler: ({ view }) => visibleSubscriptions(context.db, view),
    }),
    defineRoute({
      method: 'GET',
      path: '/subscriptions/:id',
      operationId: 'getSubscription',
      summary: 'Read a subscription',
      scope: billingScopes.read,
      params: { id: 'sub' },
      responses: { 200: { description: 'The subscription.', schema: Subscription } },
      handler: async ({ params, view }) =>
        toSubscription(await findVisibleSubscription(context.db, view, params.id)),
    }),
    defineRoute({
      method: 'POST',
      path: '/checkout',
      operationId: 'checkout',
      idempotent: true,
      summary: 'Checkout happens on the brand’s billing site',
      description: `Always refused with 403 \`checkout_external\`: customers buy plans at ${settings.checkoutUrl} (the problem's \`checkoutUrl\`).`,
      scope: billingScopes.manage,
      responses: { 201: { description: 'Never: checkout is refused here.', schema: Subscription } },
      problems: [externalBillingProblems.checkout_external],
      handler() {
        throw new Problem(externalBillingProblems.checkout_external, {
          extensions: { checkoutUrl: settings.checkoutUrl },
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/billing/callbacks',
      operationId: 'receiveBillingCallback',
      summary: 'Receive a signed callback from the brand’s billing system',
      description:
        'Public, authenticated by its signature: `X-Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." and the raw body bytes>` with the shared secret, within 5 minutes of the panel’s clock. The JSON body (UTF-8) is `{ id, type, occurredAt, data }`: `plan.updated` (`data`: `externalId`, `name`, `limits`; the plan belongs to the brand the deployment bills for) or `subscription.updated` (`data`: `externalId`, `customerId`, `planExternalId`, `status`, `reason`). A callback id is applied once (a replay answers `duplicate: true`), and one older than the newest applied to the same plan or subscription is ignored (`stale: true`), so a late retry never undoes a newer change.',
      public: true,
      responses: { 200: { description: 'Applied (or already applied).', schema: CallbackAck } },
      problems: [
        kernelProblems.body_too_large,
        kernelProblems.malformed_json,
        externalBillingProblems.invalid_callback_signature,
        externalBillingProblems.stale_callback,
        externalBillingProblems.unknown_callback_reference,
        externalBillingProblems.illegal_subscription_transition,
      ],
      async handler({ request, requestId, address, audit, emit, enqueueJob }) {
        const declared = Number(request.headers.get('content-length') ?? 0)
        if (declared > settings.callbackLimitBytes) throw new Problem(kernelProblems.body_too_large)
        // The MAC is checked over the bytes as sent: decoding first would drop a BOM and mend invalid UTF-8.
        const body = new Uint8Array(await request.arrayBuffer())
        if (body.byteLength > settings.callbackLimitBytes) throw new Problem(kernelProblems.body_too_large)
        const fault = verifyCallback(settings.secret, request.headers.get(signatureHeader), body, {
          toleranceSeconds: settings.toleranceSeconds,
          now: new Date(),
        })
        if (fault === 'invalid') throw new Problem(externalBillingProblems.invalid_callback_signature)
        if (fault === 'stale') throw new Problem(externalBillingProblems.stale_callback)
        const callback = parseCallback(body)
        const actor = { userId: null, tokenId: null, requestId, sourceAddress: address }
        // Read before the transaction: the brands plugin reads outside it, on the store's one connection.
        const brandId = settings.brandId ?? (await brands.defaultBrandId())
        return context.transaction(async (trx) => {
          // A replay, or a stale callback, changes nothing; only a callback applied is recorded (and audited).
          if (await delivered(trx, callback.id)) return { id: callback.id, duplicate: true, stale: false }
          const writers = { actor, audit, emit, enqueueJob }
          const { stale } = await applyCallback(trx, callback, writers, { suspensions, brandId, context })
          if (!stale) await recordDelivery(trx, callback.id)
          return { id: callback.id, duplicate: false, stale }
        })
      },
    }),
  ]
}
