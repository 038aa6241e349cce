// A customer's databases and logins go with it: the plugin's dependent of `customers.dependents`, run in the
// customer's deletion job. Each is deleted the way the API deletes it (its sync job drops it from its server), and
// the job waits until every one is gone.

import { type Dependent, jobIsLive, type PluginContext } from '../../core/index.ts'
import { type CustomerRef, untilRemoved } from '../customers/contract.ts'
import {
  startDatabaseDeletion,
  startDatabaseSync,
  startUserDeletion,
  startUserSync,
  type Writers,
} from './lifecycle.ts'
import { databasesOfCustomer, usersOfCustomer } from './repository.ts'

const live = ['provisioning', 'active', 'failed']
const all = [...live, 'deleting']

/** The databases' dependent of customers. */
export function databaseCustomerDependent(context: PluginContext): Dependent<CustomerRef> {
  return {
    name: 'databases',
    async remove(run, customer) {
      const writers: Writers = { enqueueJob: context.enqueueJob, audit: run.audit, emit: context.emit }
      const details = { reason: 'customer deleted' }
      await run.transaction(async (trx) => {
        for (const row of await usersOfCustomer(trx, customer.id, all)) {
          if (row.status !== 'deleting') await startUserDeletion(trx, writers, row, details)
          // Already being dropped by a job that may have given up (its server away for long): started again.
          else if (!row.job_id || !(await jobIsLive(trx, row.job_id)))
            await startUserSync(trx, writers.enqueueJob, row)
        }
        for (const row of await databasesOfCustomer(trx, customer.id, all)) {
          if (row.status !== 'deleting') await startDatabaseDeletion(trx, writers, row, details)
          else if (!row.job_id || !(await jobIsLive(trx, row.job_id)))
            await startDatabaseSync(trx, writers.enqueueJob, row)
        }
      })
      await untilRemoved(run, 'databases and database users', async () => {
        const databases = await databasesOfCustomer(context.db, customer.id, all)
        const users = await usersOfCustomer(context.db, customer.id, all)
        return [...databases, ...users].map((row) => row.job_id)
      })
    },
  }
}
