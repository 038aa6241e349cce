// The brand billing plugin's operations: the standard reads (plans, subscriptions), checkout refused in favour of the
// brand's own shop, and the signed callback the billing system sends.

import {
  brandDirectoryService,
  defineRoute,
  idPattern,
  kernelProblems,
  type PluginContext,
  Problem,
  pageOf,
  pageQuery,
  type RouteDefinition,
  t,
} from '../../core/index.ts'
import { billingScopes, Plan, Subscription } from '../../plugins/billing/contract.ts'
import { customerSuspensions } from '../../plugins/customers/contract.ts'
import { applyCallback, parseCallback } from './callbacks.ts'
import { externalBillingProblems } from './problems.ts'
import { firstDelivery, toPlan, toSubscription, visiblePlans, visibleSubscriptions } from './repository.ts'
import { signatureHeader, verifyCallback } from './signature.ts'

/** What the routes need to know of the deployment. */
export interface RouteSettings {
  readonly secret: string
  readonly toleranceSeconds: number
  readonly checkoutUrl: string
  /** Largest callback body, in bytes. */
  readonly callbackLimitBytes: number
}

const CallbackAck = t.Object(
  { id: t.String(), duplicate: t.Boolean({ description: 'True when this callback id was applied before.' }) },
  { $id: 'BillingCallbackAck' },
)

/** The routes. */
export function brandBillingRoutes(context: PluginContext, settings: RouteSettings): RouteDefinition[] {
  const suspensions = context.use(customerSuspensions)
  const brands = context.use(brandDirectoryService)
  const byId = (prefix: string) => t.Object({ id: t.String({ pattern: idPattern(prefix) }) })

  return [
    defineRoute({
      method: 'GET',
      path: '/plans',
      operationId: 'listPlans',
      summary: 'List plans (mirrored from the brand’s billing system)',
      scope: billingScopes.planRead,
      query: t.Object({ ...pageQuery }),
      responses: { 200: { description: 'A page of plans.', schema: pageOf(Plan, 'PlanPage') } },
      async handler({ view, page }) {
        const { rows, nextCursor } = await page(visiblePlans(context.db, view), {
          keyColumn: 'brand_billing_plans.id',
          keyOf: (row) => row.id,
        })
        return { items: rows.map(toPlan), nextCursor }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/plans/:id',
      operationId: 'getPlan',
      summary: 'Read a plan',
      scope: billingScopes.planRead,
      params: byId('pln'),
      responses: { 200: { description: 'The plan.', schema: Plan } },
      async handler({ params, view }) {
        const row = await visiblePlans(context.db, view).where('id', '=', params.id).executeTakeFirst()
        if (!row) throw new Problem(kernelProblems.not_found)
        return toPlan(row)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/subscriptions',
      operationId: 'listSubscriptions',
      summary: 'List subscriptions',
      scope: billingScopes.read,
      query: t.Object({ ...pageQuery }),
      responses: {
        200: { description: 'A page of subscriptions.', schema: pageOf(Subscription, 'SubscriptionPage') },
      },
      async handler({ view, page }) {
        const { rows, nextCursor } = await page(visibleSubscriptions(context.db, view), {
          keyColumn: 'brand_billing_subscriptions.id',
          keyOf: (row) => row.id,
        })
        return { items: rows.map(toSubscription), nextCursor }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/subscriptions/:id',
      operationId: 'getSubscription',
      summary: 'Read a subscription',
      scope: billingScopes.read,
      params: byId('sub'),
      responses: { 200: { description: 'The subscription.', schema: Subscription } },
      async handler({ params, view }) {
        const row = await visibleSubscriptions(context.db, view)
          .where('brand_billing_subscriptions.id', '=', params.id)
          .executeTakeFirst()
        if (!row) throw new Problem(kernelProblems.not_found)
        return toSubscription(row)
      },
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
        'Public, authenticated by its signature: `X-Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the shared secret, within 5 minutes of the panel’s clock. The JSON body is `{ id, type, data }`: `plan.updated` (`data`: `externalId`, `name`, `limits`) or `subscription.updated` (`data`: `externalId`, `customerId`, `planExternalId`, `status`, `reason`). A callback id is applied once; a replay answers `duplicate: true`.',
      public: true,
      responses: { 200: { description: 'Applied (or already applied).', schema: CallbackAck } },
      problems: [
        externalBillingProblems.invalid_callback_signature,
        externalBillingProblems.stale_callback,
        externalBillingProblems.unknown_callback_reference,
        externalBillingProblems.illegal_subscription_transition,
      ],
      async handler({ request, requestId, address, audit, emit }) {
        const declared = Number(request.headers.get('content-length') ?? 0)
        if (declared > settings.callbackLimitBytes) throw new Problem(kernelProblems.body_too_large)
        const text = await request.text()
        if (Buffer.byteLength(text) > settings.callbackLimitBytes)
          throw new Problem(kernelProblems.body_too_large)
        const fault = verifyCallback(settings.secret, request.headers.get(signatureHeader), text, {
          toleranceSeconds: settings.toleranceSeconds,
          now: new Date(),
        })
        if (fault === 'invalid') throw new Problem(externalBillingProblems.invalid_callback_signature)
        if (fault === 'stale') throw new Problem(externalBillingProblems.stale_callback)
        const callback = parseCallback(text)
        const actor = { userId: null, tokenId: null, requestId, sourceAddress: address }
        // Read before the transaction: the brands plugin reads outside it, on the store's one connection.
        const defaultBrandId = await brands.defaultBrandId()
        const duplicate = await context.transaction(async (trx) => {
          if (!(await firstDelivery(trx, callback.id))) return true
          await applyCallback(trx, callback, { actor, audit, emit }, { suspensions, defaultBrandId })
          return false
        })
        return { id: callback.id, duplicate }
      },
    }),
  ]
}
