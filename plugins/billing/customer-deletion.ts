// A customer's subscriptions end with it: the plugin's dependent of `customers.dependents`, run in the customer's
// deletion job. Each subscription not yet cancelled is cancelled (audit entry, `subscription.cancelled`: the
// billing system stops charging), with no removal job of its own (the deletion removes everything), and then every
// subscription of the customer is forgotten (404).

import { type Dependent, nowIso, type PluginContext } from '../../core/index.ts'
import type { CustomerRef } from '../customers/contract.ts'
import type { BillingTables } from './migrations.ts'
import { toSubscription, updateSubscription } from './repository.ts'

/** The subscriptions' dependent of customers. */
export function billingCustomerDependent(context: PluginContext): Dependent<CustomerRef> {
  return {
    name: 'billing',
    remove: (run, customer) =>
      run.transaction(async (trx) => {
        const tables = trx.withTables<BillingTables>()
        const rows = await tables
          .selectFrom('subscriptions')
          .selectAll()
          .where('customer_id', '=', customer.id)
          .execute()
        for (const row of rows) {
          if (row.status === 'cancelled') continue
          const now = nowIso()
          const cancelled = await updateSubscription(trx, row.id, {
            status: 'cancelled',
            cancelled_at: now,
            removed_at: now,
          })
          await run.audit(trx, {
            action: 'subscription.cancel',
            subject: { type: 'subscription', id: row.id },
            customerId: row.customer_id,
            details: { from: row.status, reason: 'customer deleted' },
          })
          await context.emit(trx, {
            kind: 'subscription.cancelled',
            customerId: row.customer_id,
            data: toSubscription(cancelled),
          })
        }
        await tables.deleteFrom('subscriptions').where('customer_id', '=', customer.id).execute()
      }),
  }
}
