// Every change to a subscription, in one place: checked against the state table, written with its audit entry and
// event, and followed by the customer's standing (hold or release of its resources), all in one transaction.

import {
  type AuditActor,
  type AuditInput,
  type EventInput,
  fieldProblem,
  type JobRequest,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  type TenantView,
  type Trx,
} from '../../core/index.ts'
import { assertCustomerOpen, customerDirectory, customerSuspensions } from '../customers/contract.ts'
import { type Subscription, type SubscriptionStatus, subscriptionTransitions } from './contract.ts'
import type { SubscriptionsTable } from './migrations.ts'
import { billingProblems } from './problems.ts'
import {
  findPlanRow,
  insertSubscription,
  subscriptions,
  subscriptionsOfCustomer,
  toSubscription,
  updateSubscription,
} from './repository.ts'
import { applyStanding } from './standing.ts'

/** What a route handler lends a change: the caller's view and the kernel's writers. */
export interface ChangeInput {
  readonly view: TenantView
  readonly caller: { readonly user: { readonly id: string }; readonly token: { readonly id: string } | null }
  readonly requestId: string
  readonly address: string | null
  audit(trx: Trx, entry: AuditInput): Promise<void>
  emit(trx: Trx, event: EventInput): Promise<void>
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
}

/** Who made a change, for the audit entries of the resources it suspends or restores. */
function actorOf(input: ChangeInput): AuditActor {
  return {
    userId: input.caller.user.id,
    tokenId: input.caller.token?.id ?? null,
    requestId: input.requestId,
    sourceAddress: input.address,
  }
}

/** Refuses a move the state table does not allow with 409 `illegal_subscription_transition`. */
function assertTransition(from: SubscriptionStatus, to: SubscriptionStatus): void {
  if (!subscriptionTransitions[from].includes(to)) {
    throw new Problem(billingProblems.illegal_subscription_transition, {
      detail: `A subscription that is ${from} cannot become ${to}.`,
      extensions: { currentStatus: from, requestedStatus: to },
    })
  }
}

/** The states `PATCH {status}` moves between: payment standing. Suspension has its own operations. */
const paymentStandings: readonly SubscriptionStatus[] = ['active', 'past_due']

/** The job that removes a cancelled customer's resources once the grace period is over. */
export const removalJobKind = 'subscription.removeResources'

/** The subscription changes of one panel, shared by the subscription and checkout routes. */
export type SubscriptionChanges = ReturnType<typeof subscriptionChanges>

/** The subscription changes of one panel. */
export function subscriptionChanges(context: PluginContext, options: { readonly removalGraceMs: number }) {
  const customers = context.use(customerDirectory)
  const standing = { suspensions: context.use(customerSuspensions), quotas: context.quotas }

  /** The plan `planId` if the customer's brand offers it and it takes subscriptions (422 otherwise). */
  async function offeredPlan(trx: Trx, customerId: string, planId: string, location: string) {
    const plan = await findPlanRow(trx, planId)
    if (!plan || plan.brand_id !== (await context.tenancy.brandOf(trx, customerId))) {
      throw fieldProblem(billingProblems.unknown_plan, location)
    }
    if (plan.status !== 'active') throw fieldProblem(billingProblems.plan_archived, location)
    return plan
  }

  /** Writes a changed subscription's audit entry and event, then follows the customer's standing. */
  async function record(
    trx: Trx,
    input: ChangeInput,
    row: SubscriptionsTable,
    change: { action: string; event: string; reason: string; details?: Record<string, unknown> },
  ): Promise<Subscription> {
    const subscription = toSubscription(row)
    await input.audit(trx, {
      action: change.action,
      subject: { type: 'subscription', id: row.id },
      customerId: row.customer_id,
      details: change.details ?? {},
    })
    await input.emit(trx, { kind: change.event, customerId: row.customer_id, data: subscription })
    await applyStanding(trx, standing, {
      customerId: row.customer_id,
      reason: change.reason,
      actor: actorOf(input),
      enqueueJob: input.enqueueJob,
    })
    return subscription
  }

  /**
   * Checkout subscribes a customer once, and never lifts a suspension: 409 `subscription_suspended` while it holds a
   * suspended subscription (or one cancelled while suspended whose removal is pending: cancelling must not be a way
   * round it), `already_subscribed` while it holds a live one. A cancelled one leaves it free to.
   */
  async function assertMayCheckOut(trx: Trx, customerId: string): Promise<void> {
    const rows = await subscriptionsOfCustomer(trx, customerId)
    const suspended = rows.find(
      (row) =>
        row.status === 'suspended' ||
        (row.status === 'cancelled' && row.suspended_at !== null && row.removed_at === null),
    )
    if (suspended)
      throw new Problem(billingProblems.subscription_suspended, {
        extensions: { subscriptionId: suspended.id },
      })
    const live = rows.find((row) => paymentStandings.includes(row.status as SubscriptionStatus))
    if (live)
      throw new Problem(billingProblems.already_subscribed, { extensions: { subscriptionId: live.id } })
  }

  return {
    /** Starts an `active` subscription of a customer in view to a plan its brand offers (POST /subscriptions, checkout). */
    async start(
      input: ChangeInput,
      body: { customerId: string; planId: string; externalId?: string | undefined },
      via: 'api' | 'checkout',
    ): Promise<Subscription> {
      return context.transaction(async (trx) => {
        const customer = await customers.find(trx, input.view, body.customerId)
        if (!customer) throw fieldProblem(billingProblems.unknown_billing_customer, 'body.customerId')
        assertCustomerOpen(customer)
        // Inside the transaction: two checkouts at once cannot both find the customer unsubscribed.
        if (via === 'checkout') await assertMayCheckOut(trx, customer.id)
        const plan = await offeredPlan(trx, customer.id, body.planId, 'body.planId')
        const now = nowIso()
        const row: SubscriptionsTable = {
          id: newId('sub'),
          customer_id: customer.id,
          plan_id: plan.id,
          status: 'active',
          external_id: body.externalId ?? null,
          suspended_reason: null,
          suspended_at: null,
          cancelled_at: null,
          removal_at: null,
          removed_at: null,
          created_at: now,
          updated_at: now,
        }
        await insertSubscription(trx, row)
        return record(trx, input, row, {
          action: 'subscription.create',
          event: 'subscription.created',
          reason: `subscription ${row.id} started`,
          details: { planId: plan.id, via, externalId: row.external_id },
        })
      })
    },

    /**
     * Changes plan or external id, or moves between `active` and `past_due`. Nothing of a cancelled subscription
     * changes, and a suspended one leaves `suspended` only through `unsuspend` (409 otherwise).
     */
    async update(
      input: ChangeInput,
      id: string,
      body: { planId?: string; status?: 'active' | 'past_due'; externalId?: string | null },
    ): Promise<Subscription> {
      return context.transaction(async (trx) => {
        const row = await subscriptions.find(trx, input.view, id)
        const from = row.status as SubscriptionStatus
        if (from === 'cancelled')
          throw new Problem(billingProblems.illegal_subscription_transition, {
            detail: 'A cancelled subscription cannot be changed; start a new one.',
            extensions: { currentStatus: from, ...(body.status ? { requestedStatus: body.status } : {}) },
          })
        const changes: Partial<SubscriptionsTable> = {}
        if (body.status !== undefined && body.status !== from) {
          if (!paymentStandings.includes(from))
            throw new Problem(billingProblems.illegal_subscription_transition, {
              detail: `PATCH moves only between active and past_due; a ${from} subscription cannot become ${body.status} this way${from === 'suspended' ? ' (unsuspend it)' : ''}.`,
              extensions: { currentStatus: from, requestedStatus: body.status },
            })
          changes.status = body.status
        }
        if (body.planId !== undefined && body.planId !== row.plan_id) {
          changes.plan_id = (await offeredPlan(trx, row.customer_id, body.planId, 'body.planId')).id
        }
        if (body.externalId !== undefined && body.externalId !== row.external_id)
          changes.external_id = body.externalId
        if (Object.keys(changes).length === 0) return toSubscription(row)
        const updated = await updateSubscription(trx, row.id, changes)
        return record(trx, input, updated, {
          action: 'subscription.update',
          event: 'subscription.updated',
          reason: `subscription ${row.id} changed`,
          details: {
            ...(changes.status ? { from: row.status, to: changes.status } : {}),
            ...(changes.plan_id ? { fromPlanId: row.plan_id, planId: changes.plan_id } : {}),
            ...(changes.external_id !== undefined ? { externalId: changes.external_id } : {}),
          },
        })
      })
    },

    /** Suspends a live subscription; the customer's resources are suspended when none of its subscriptions is live. */
    async suspend(input: ChangeInput, id: string, reason: string): Promise<Subscription> {
      return context.transaction(async (trx) => {
        const row = await subscriptions.find(trx, input.view, id)
        assertTransition(row.status as SubscriptionStatus, 'suspended')
        const updated = await updateSubscription(trx, row.id, {
          status: 'suspended',
          suspended_reason: reason,
          suspended_at: nowIso(),
        })
        return record(trx, input, updated, {
          action: 'subscription.suspend',
          event: 'subscription.suspended',
          reason: `subscription ${row.id} suspended: ${reason}`,
          details: { from: row.status, reason },
        })
      })
    },

    /** Makes a suspended subscription active again; what its suspension suspended is restored. */
    async unsuspend(input: ChangeInput, id: string): Promise<Subscription> {
      return context.transaction(async (trx) => {
        const row = await subscriptions.find(trx, input.view, id)
        assertTransition(row.status as SubscriptionStatus, 'active')
        const updated = await updateSubscription(trx, row.id, {
          status: 'active',
          suspended_reason: null,
          suspended_at: null,
        })
        return record(trx, input, updated, {
          action: 'subscription.unsuspend',
          event: 'subscription.unsuspended',
          reason: `subscription ${row.id} unsuspended`,
          details: { from: row.status },
        })
      })
    },

    /**
     * Cancels a subscription for good: when the customer has no live subscription left its resources are suspended
     * at once, and a job removes them once the grace period is over (unless it subscribes again meanwhile).
     */
    async cancel(input: ChangeInput, id: string): Promise<Subscription> {
      return context.transaction(async (trx) => {
        const row = await subscriptions.find(trx, input.view, id)
        assertTransition(row.status as SubscriptionStatus, 'cancelled')
        const now = new Date()
        const removalAt = new Date(now.getTime() + options.removalGraceMs)
        await input.enqueueJob(trx, {
          kind: removalJobKind,
          customerId: row.customer_id,
          subject: { type: 'subscription', id: row.id },
          runAt: removalAt,
        })
        const updated = await updateSubscription(trx, row.id, {
          status: 'cancelled',
          cancelled_at: now.toISOString(),
          removal_at: removalAt.toISOString(),
        })
        return record(trx, input, updated, {
          action: 'subscription.cancel',
          event: 'subscription.cancelled',
          reason: `subscription ${row.id} cancelled`,
          details: { from: row.status, removalAt: removalAt.toISOString() },
        })
      })
    },
  }
}
