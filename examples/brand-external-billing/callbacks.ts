// What the billing system tells the panel, and how each callback is applied: plans announced, subscriptions moved
// to the state the billing system says, with the standard events and the customer's sites held or released.

import { TypeCompiler } from '@sinclair/typebox/compiler'
import {
  type AuditActor,
  type AuditInput,
  brandOfCustomer,
  type EventInput,
  kernelProblems,
  newId,
  nowIso,
  Problem,
  QuotaLimitsSchema,
  type Static,
  type Trx,
  t,
} from '../../core/index.ts'
import { billingHolder } from '../../plugins/billing/contract.ts'
import type { CustomerSuspensions } from '../../plugins/customers/contract.ts'
import type { BrandSubscriptionsTable } from './migrations.ts'
import { externalBillingProblems } from './problems.ts'
import {
  holdsAny,
  insertPlan,
  insertSubscription,
  planByExternalId,
  standingOf,
  subscriptionByExternalId,
  toPlan,
  toSubscription,
  updatePlan,
  updateSubscription,
} from './repository.ts'

const ExternalId = t.String({ minLength: 1, maxLength: 200 })

/** A callback body, once its signature is good. */
export const Callback = t.Union([
  t.Object({
    id: ExternalId,
    type: t.Literal('plan.updated'),
    data: t.Object({
      externalId: ExternalId,
      name: t.String({ minLength: 1, maxLength: 100 }),
      limits: QuotaLimitsSchema,
    }),
  }),
  t.Object({
    id: ExternalId,
    type: t.Literal('subscription.updated'),
    data: t.Object({
      externalId: ExternalId,
      customerId: t.String({ minLength: 1, maxLength: 64 }),
      planExternalId: ExternalId,
      status: t.Union([
        t.Literal('active'),
        t.Literal('past_due'),
        t.Literal('suspended'),
        t.Literal('cancelled'),
      ]),
      reason: t.Optional(t.String({ maxLength: 500 })),
    }),
  }),
])
export type Callback = Static<typeof Callback>
const check = TypeCompiler.Compile(Callback)

/** The callback in `text`, or a 422 naming what is wrong with it. */
export function parseCallback(text: string): Callback {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new Problem(kernelProblems.malformed_json)
  }
  if (check.Check(value)) return value
  const first = check.Errors(value).First()
  const location = `body${(first?.path ?? '').replaceAll('/', '.')}`
  throw new Problem(kernelProblems.validation_failed, {
    errors: [{ location, message: first?.message ?? 'is invalid', code: 'invalid' }],
  })
}

/** What applying a callback needs of the route that received it. */
export interface Writers {
  readonly actor: AuditActor
  audit(trx: Trx, entry: AuditInput): Promise<void>
  emit(trx: Trx, event: EventInput): Promise<void>
}

/** Which event a move between states is announced as. */
function eventOf(from: string | null, to: string): { kind: string; action: string } {
  if (from === null) return { kind: 'subscription.created', action: 'subscription.create' }
  if (to === 'suspended') return { kind: 'subscription.suspended', action: 'subscription.suspend' }
  if (to === 'cancelled') return { kind: 'subscription.cancelled', action: 'subscription.cancel' }
  if (from === 'suspended') return { kind: 'subscription.unsuspended', action: 'subscription.unsuspend' }
  return { kind: 'subscription.updated', action: 'subscription.update' }
}

/** Applies a callback in `trx`. */
export async function applyCallback(
  trx: Trx,
  callback: Callback,
  writers: Writers,
  services: { readonly suspensions: CustomerSuspensions; readonly defaultBrandId: string },
): Promise<void> {
  const now = nowIso()
  if (callback.type === 'plan.updated') {
    const { data } = callback
    const existing = await planByExternalId(trx, data.externalId)
    const limits = JSON.stringify(data.limits)
    if (existing) await updatePlan(trx, existing.id, { name: data.name, limits, updated_at: now })
    else {
      const row = {
        id: newId('pln'),
        external_id: data.externalId,
        brand_id: services.defaultBrandId,
        name: data.name,
        limits,
        created_at: now,
        updated_at: now,
      }
      await insertPlan(trx, row)
    }
    const plan = await planByExternalId(trx, data.externalId)
    await writers.audit(trx, {
      action: existing ? 'plan.update' : 'plan.create',
      subject: { type: 'plan', id: plan?.id ?? '' },
      customerId: null,
      details: { plan: plan ? toPlan(plan) : null, callback: callback.id },
    })
    return
  }

  const { data } = callback
  const plan = await planByExternalId(trx, data.planExternalId)
  const brandId = await brandOfCustomer(trx, data.customerId)
  if (!plan || brandId === null || plan.brand_id !== brandId)
    throw new Problem(externalBillingProblems.unknown_callback_reference)
  const existing = await subscriptionByExternalId(trx, data.externalId)
  if (existing && existing.customer_id !== data.customerId)
    throw new Problem(externalBillingProblems.unknown_callback_reference)
  if (existing?.status === 'cancelled' && data.status !== 'cancelled')
    throw new Problem(externalBillingProblems.illegal_subscription_transition, {
      extensions: { status: 'cancelled', requested: data.status },
    })
  const suspension = data.status === 'suspended'
  const row: BrandSubscriptionsTable = {
    id: existing?.id ?? newId('sub'),
    external_id: data.externalId,
    customer_id: data.customerId,
    plan_id: plan.id,
    status: data.status,
    suspended_reason: suspension ? (data.reason ?? 'suspended by the billing system') : null,
    suspended_at: suspension ? (existing?.suspended_at ?? now) : null,
    cancelled_at: data.status === 'cancelled' ? (existing?.cancelled_at ?? now) : null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  }
  if (existing && existing.status === row.status && existing.plan_id === row.plan_id) return
  if (existing) await updateSubscription(trx, row.id, row)
  else await insertSubscription(trx, row)
  const { kind, action } = eventOf(existing?.status ?? null, row.status)
  await writers.audit(trx, {
    action,
    subject: { type: 'subscription', id: row.id },
    customerId: row.customer_id,
    details: { from: existing?.status ?? null, to: row.status, callback: callback.id },
  })
  await writers.emit(trx, { kind, customerId: row.customer_id, data: toSubscription(row) })

  // The billing system runs its own grace period: a cancellation it sends is final, so the sites go at once.
  const request = {
    customerId: row.customer_id,
    reason: `subscription ${row.id} ${row.status} by the billing system${data.reason ? `: ${data.reason}` : ''}`,
    actor: writers.actor,
    holder: billingHolder,
  }
  if (row.status === 'cancelled' && !(await holdsAny(trx, row.customer_id))) {
    await services.suspensions.remove(trx, request)
    return
  }
  if ((await standingOf(trx, row.customer_id)).kind === 'suspended')
    await services.suspensions.hold(trx, request)
  else await services.suspensions.release(trx, request)
}
