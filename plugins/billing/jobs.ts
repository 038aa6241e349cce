// The billing plugin's background work: removing a cancelled customer's resources once the grace period is over.

import type { JobDefinition, PluginContext } from '../../core/index.ts'
import { customerSuspensions } from '../customers/contract.ts'
import { markRemoved, subscriptionsOfCustomer } from './repository.ts'
import { removalJobKind } from './subscription-changes.ts'

/** Installation work (no request): audit entries of what it removes carry no user. */
const scheduled = { userId: null, tokenId: null, requestId: null, sourceAddress: null }

/** The billing plugin's job definitions. */
export function billingJobs(context: PluginContext): JobDefinition[] {
  const suspensions = context.use(customerSuspensions)
  return [
    {
      kind: removalJobKind,
      description:
        'When a cancelled subscription’s grace period is over: removes every resource of its customer, unless the customer holds a subscription that is not cancelled by then.',
      async run(job) {
        const customerId = job.customerId
        if (customerId === null) return { skipped: true }
        return job.transaction(async (trx) => {
          const rows = await subscriptionsOfCustomer(trx, customerId)
          // Subscribed again (or only suspended, which may still be restored): nothing to remove.
          if (rows.some((row) => row.status !== 'cancelled')) return { skipped: true }
          const removed = await suspensions.remove(trx, {
            customerId,
            reason: `subscription ${job.subject.id} cancelled; grace period over`,
            actor: scheduled,
          })
          await markRemoved(trx, customerId, new Date().toISOString())
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
