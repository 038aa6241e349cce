// What the billing system tells the panel, and how each callback is applied: plans announced, subscriptions moved
// to the state the billing system says, with the standard events and the customer's sites held or released. Each
// callback says when it happened, so one retried late never undoes a newer one.

import { TypeCompiler } from '@sinclair/typebox/compiler'
import { ValueErrorType } from '@sinclair/typebox/errors'
import {
  type AuditActor,
  type AuditInput,
  type EventInput,
  type JobRequest,
  kernelProblems,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  type Static,
  type TObject,
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
const OccurredAt = t.String({
  minLength: 20,
  maxLength: 35,
  description:
    'When the change happened in the billing system, ISO 8601 with a zone (`2025-01-31T12:00:00.000Z`). Per plan and per subscription, a callback older than the newest one applied is ignored (`stale: true`).',
})

/** A callback body, once its signature is good; plans' `limits` are the installation's (`context.quotas`). */
const callbackSchema = (limits: TObject) =>
  t.Union([
    t.Object({
      id: ExternalId,
      type: t.Literal('plan.updated'),
      occurredAt: OccurredAt,
      data: t.Object({ externalId: ExternalId, name: t.String({ minLength: 1, maxLength: 100 }), limits }),
    }),
    t.Object({
      id: ExternalId,
      type: t.Literal('subscription.updated'),
      occurredAt: OccurredAt,
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
export type Callback = Static<ReturnType<typeof callbackSchema>>

/** Strict UTF-8 (the MAC covered the bytes; text that is not UTF-8 is not JSON); a leading BOM is dropped. */
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Reads callbacks whose plans' `limits` are `limits`: the raw `body` as a callback, or a 400 (not UTF-8 JSON) or 422. */
export function callbackParser(limits: TObject): (body: Uint8Array) => Callback {
  const check = TypeCompiler.Compile(callbackSchema(limits))
  const refuse = (location: string, message: string, code: string) =>
    new Problem(kernelProblems.validation_failed, { errors: [{ location, message, code }] })
  return (body) => {
    let value: unknown
    try {
      value = JSON.parse(utf8.decode(body))
    } catch {
      throw new Problem(kernelProblems.malformed_json)
    }
    if (!check.Check(value)) {
      const first = check.Errors(value).First()
      const missing = first?.type === ValueErrorType.ObjectRequiredProperty
      const location = `body${(first?.path ?? '').replaceAll('/', '.')}`
      throw refuse(location, first?.message ?? 'is invalid', missing ? 'required' : 'invalid_value')
    }
    if (!/([zZ]|[+-]\d\d:\d\d)$/.test(value.occurredAt) || Number.isNaN(Date.parse(value.occurredAt)))
      throw refuse('body.occurredAt', 'must be an ISO 8601 date-time with a zone', 'invalid_format')
    return value
  }
}

/** What applying a callback needs of the route that received it. */
export interface Writers {
  readonly actor: AuditActor
  audit(trx: Trx, entry: AuditInput): Promise<void>
  emit(trx: Trx, event: EventInput): Promise<void>
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
}

/** Which event a move between states is announced as. */
function eventOf(from: string | null, to: string): { kind: string; action: string } {
  if (from === null) return { kind: 'subscription.created', action: 'subscription.create' }
  if (to === 'suspended') return { kind: 'subscription.suspended', action: 'subscription.suspend' }
  if (to === 'cancelled') return { kind: 'subscription.cancelled', action: 'subscription.cancel' }
  if (from === 'suspended') return { kind: 'subscription.unsuspended', action: 'subscription.unsuspend' }
  return { kind: 'subscription.updated', action: 'subscription.update' }
}

/** Whether a callback that happened at `occurredAt` is older than the newest one applied (`newest`). */
function older(occurredAt: string, newest: string | null): boolean {
  return newest !== null && Date.parse(occurredAt) < Date.parse(newest)
}

/**
 * Applies a callback in `trx`; plans land in `brandId`, the brand this billing system bills for. Answers whether it
 * was stale: older than the newest callback applied to the same plan or subscription, and so ignored.
 */
export async function applyCallback(
  trx: Trx,
  callback: Callback,
  writers: Writers,
  services: {
    readonly suspensions: CustomerSuspensions
    readonly brandId: string
    readonly context: Pick<PluginContext, 'tenancy' | 'quotas'>
  },
): Promise<{ readonly stale: boolean }> {
  const now = nowIso()
  if (callback.type === 'plan.updated') {
    const { data } = callback
    const existing = await planByExternalId(trx, data.externalId)
    if (existing && older(callback.occurredAt, existing.occurred_at)) return { stale: true }
    const limits = JSON.stringify(data.limits)
    const changes = { name: data.name, limits, occurred_at: callback.occurredAt, updated_at: now }
    if (existing) await updatePlan(trx, existing.id, changes)
    else {
      await insertPlan(trx, {
        id: newId('pln'),
        external_id: data.externalId,
        brand_id: services.brandId,
        created_at: now,
        ...changes,
      })
    }
    const plan = await planByExternalId(trx, data.externalId)
    if (!plan) throw new Error(`Plan ${data.externalId} vanished while it was written`)
    await writers.audit(trx, {
      action: existing ? 'plan.update' : 'plan.create',
      subject: { type: 'plan', id: plan.id },
      customerId: null,
      brandId: plan.brand_id,
      details: { plan: toPlan(plan), callback: callback.id },
    })
    await writers.emit(trx, {
      kind: existing ? 'plan.updated' : 'plan.created',
      customerId: null,
      data: toPlan(plan),
    })
    return { stale: false }
  }

  const { data } = callback
  const plan = await planByExternalId(trx, data.planExternalId)
  const brandId = await services.context.tenancy.brandOf(trx, data.customerId)
  if (!plan || brandId === null || plan.brand_id !== brandId)
    throw new Problem(externalBillingProblems.unknown_callback_reference)
  const existing = await subscriptionByExternalId(trx, data.externalId)
  if (existing && existing.customer_id !== data.customerId)
    throw new Problem(externalBillingProblems.unknown_callback_reference)
  // A retry of an older callback (an `active` sent before the `suspended` now applied) must not undo the newer one.
  if (existing && older(callback.occurredAt, existing.occurred_at)) return { stale: true }
  if (existing?.status === 'cancelled' && data.status !== 'cancelled')
    throw new Problem(externalBillingProblems.illegal_subscription_transition, {
      extensions: { currentStatus: 'cancelled', requestedStatus: data.status },
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
    occurred_at: callback.occurredAt,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  }
  const audit = (action: string) =>
    writers.audit(trx, {
      action,
      subject: { type: 'subscription', id: row.id },
      customerId: row.customer_id,
      details: { from: existing?.status ?? null, to: row.status, callback: callback.id },
    })
  // Nothing changes but when the billing system last spoke of it, which later callbacks are ordered against.
  if (existing && existing.status === row.status && existing.plan_id === row.plan_id) {
    await updateSubscription(trx, row.id, { occurred_at: row.occurred_at })
    await audit('subscription.confirm')
    return { stale: false }
  }
  if (existing) await updateSubscription(trx, row.id, row)
  else await insertSubscription(trx, row)
  const { kind, action } = eventOf(existing?.status ?? null, row.status)
  await audit(action)
  await writers.emit(trx, { kind, customerId: row.customer_id, data: toSubscription(row) })

  // The billing system runs its own grace period: a cancellation it sends is final, so the sites go at once.
  const request = {
    customerId: row.customer_id,
    reason: `subscription ${row.id} ${row.status} by the billing system${data.reason ? `: ${data.reason}` : ''}`,
    actor: writers.actor,
    enqueueJob: writers.enqueueJob,
    holder: billingHolder,
  }
  if (row.status === 'cancelled' && !(await holdsAny(trx, row.customer_id))) {
    await services.suspensions.remove(trx, request)
    return { stale: false }
  }
  if ((await standingOf(trx, row.customer_id, services.context.quotas)).kind === 'suspended')
    await services.suspensions.hold(trx, request)
  else await services.suspensions.release(trx, request)
  return { stale: false }
}
