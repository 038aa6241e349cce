// The billing plugin's background work: removing a cancelled customer's resources once the grace period is over.

import type { JobDefinition, PluginContext } from '../../core/index.ts'
import { customerDirectory, customerSuspensions } from '../customers/contract.ts'
import { billingHolder } from './contract.ts'
import { markRemoved, subscriptionsOfCustomer } from './repository.ts'
import { removalJobKind } from './subscription-changes.ts'

/** Installation work (no request): audit entries of what it removes carry no user. */
const scheduled = { userId: null, tokenId: null, requestId: null, sourceAddress: null }

/** The billing plugin's job definitions. */
export function billingJobs(context: PluginContext): JobDefinition[] {
  const suspensions = context.use(customerSuspensions)
  const customers = context.use(customerDirectory)
  return [
    {
      kind: removalJobKind,
      // Removes what a customer no longer pays for: ahead of customers' work.
      priority: 'urgent',
      description:
        'When a cancelled subscription’s grace period is over: removes every resource of its customer, unless the customer holds a subscription that is not cancelled, or another cancellation’s grace period ends later (that one’s job removes them).',
      async run(job) {
        const customerId = job.customerId
        if (customerId === null) return { skipped: true, why: 'no customer' }
        // Deleted meanwhile: its deletion removed everything, and its subscriptions with it.
        if (!(await customers.find(context.db, { kind: 'all' }, customerId)))
          return { skipped: true, why: 'the customer was deleted' }
        return job.transaction(async (trx) => {
          const now = new Date()
          const own = job.subject.id
          const rows = await subscriptionsOfCustomer(trx, customerId)
          // Subscribed again (or only suspended, which may still be restored): nothing to remove.
          const kept = rows.find((row) => row.status !== 'cancelled')
          if (kept) {
            await markRemoved(trx, [own], now.toISOString())
            return {
              skipped: true,
              why: 'the customer holds a subscription that is not cancelled',
              kept: kept.id,
            }
          }
          // Cancellations still waiting for their removal; the latest one decides, so an earlier job never cuts
          // short a later cancellation's grace period.
          const pending = rows.filter((row) => row.removed_at === null && row.removal_at !== null)
          const latest = pending.reduce<string | null>(
            (at, row) => (at === null || (row.removal_at ?? '') > at ? row.removal_at : at),
            null,
          )
          if (latest !== null && Date.parse(latest) > now.getTime()) {
            await markRemoved(trx, [own], now.toISOString())
            return {
              skipped: true,
              why: 'a later cancellation’s grace period is not over',
              removalAt: latest,
            }
          }
          const removed = await suspensions.remove(trx, {
            customerId,
            reason: `subscription ${own} cancelled; grace period over`,
            actor: scheduled,
            holder: billingHolder,
          })
          await markRemoved(
            trx,
            pending.map((row) => row.id),
            now.toISOString(),
          )
          await job.audit(trx, {
            action: 'subscription.removeResources',
            subject: job.subject,
            customerId,
            details: { removed },
          })
          return { removed: removed.length }
        })
      },
    },
  ]
}
