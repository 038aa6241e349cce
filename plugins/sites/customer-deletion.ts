// A customer's sites go with it: the sites plugin's dependent of `customers.dependents`, run in the customer's
// deletion job. Each site is deleted the one way sites are (its `site.delete` job, a provisioning under way
// cancelled), and the job waits until every one is gone.

import type { Dependent } from '../../core/index.ts'
import { jobIsLive, type PluginContext, type Trx } from '../../core/index.ts'
import { type CustomerRef, untilRemoved } from '../customers/contract.ts'
import { siteJobKinds } from './jobs.ts'
import type { SiteWriters } from './lifecycle.ts'
import type { SitesTables } from './migrations.ts'
import { updateSite } from './repository.ts'
import { startSiteDeletion } from './site-deletion.ts'

/** The sites' dependent of customers. */
export function siteCustomerDependent(context: PluginContext): Dependent<CustomerRef> {
  const sitesOf = (db: Trx | PluginContext['db'], customerId: string) =>
    db.withTables<SitesTables>().selectFrom('sites').where('customer_id', '=', customerId)

  return {
    name: 'sites',
    async remove(run, customer) {
      const writers: SiteWriters = { enqueueJob: context.enqueueJob, audit: run.audit, emit: context.emit }
      await run.transaction(async (trx) => {
        for (const row of await sitesOf(trx, customer.id).selectAll().execute()) {
          if (row.status !== 'deleting') {
            await startSiteDeletion(trx, context, writers, row, { reason: 'customer deleted' })
            continue
          }
          // Being deleted already, by a job that may have given up (its node away for long): started again.
          if (row.job_id && (await jobIsLive(trx, row.job_id))) continue
          const jobId = await context.enqueueJob(trx, {
            kind: siteJobKinds.delete,
            customerId: row.customer_id,
            subject: { type: 'site', id: row.id },
          })
          await updateSite(trx, row.id, { job_id: jobId })
        }
      })
      await untilRemoved(run, 'sites', async () => {
        const rows = await sitesOf(context.db, customer.id).select('job_id').execute()
        return rows.map((row) => row.job_id)
      })
    },
  }
}
