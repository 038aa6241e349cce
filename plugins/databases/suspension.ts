// Database logins locked with their customer: the handler the plugin adds to `customers.suspensionHandlers`. A
// hold locks every login of the customer (its job ends their sessions), its end unlocks them, and the customer's
// removal deletes its databases and logins, each in the holder's transaction.

import { type PluginContext, type Trx, writeAudit } from '../../core/index.ts'
import type { SuspensionHandler, SuspensionRequest } from '../customers/contract.ts'
import { changeUser, startDatabaseDeletion, startUserDeletion, type Writers } from './lifecycle.ts'
import { databasesOfCustomer, usersOfCustomer } from './repository.ts'

/** The database logins' suspension handler. */
export function databaseSuspensionHandler(context: PluginContext): SuspensionHandler {
  /** The hold's writers: its requester is the actor, and the jobs it starts are the requester's where it can say. */
  const writersOf = (request: SuspensionRequest): Writers => ({
    enqueueJob: request.enqueueJob ?? context.enqueueJob,
    audit: (trx, entry) => writeAudit(trx, request.actor, entry),
    emit: context.emit,
  })
  const liveUsers = (trx: Trx, customerId: string) =>
    usersOfCustomer(trx, customerId, ['provisioning', 'active', 'failed'])

  return {
    name: 'database_users',
    async suspend(trx, request) {
      const writers = writersOf(request)
      const users = await liveUsers(trx, request.customerId)
      for (const user of users) {
        if (user.locked === 1) continue
        await changeUser(trx, writers, user, {
          changes: { locked: 1 },
          action: 'database_user.lock',
          details: { reason: request.reason },
        })
      }
      // Logins already locked stay covered: they stay locked while this hold lasts.
      return users.map((user) => user.id)
    },
    async restore(trx, request) {
      if (request.ids.length === 0) return []
      const writers = writersOf(request)
      const users = (await liveUsers(trx, request.customerId)).filter(
        (user) => user.locked === 1 && request.ids.includes(user.id),
      )
      for (const user of users) {
        await changeUser(trx, writers, user, {
          changes: { locked: 0 },
          action: 'database_user.unlock',
          details: { reason: request.reason },
        })
      }
      return users.map((user) => user.id)
    },
    async remove(trx, request) {
      const writers = writersOf(request)
      const details = { reason: request.reason }
      const users = await liveUsers(trx, request.customerId)
      for (const user of users) await startUserDeletion(trx, writers, user, details)
      const databases = await databasesOfCustomer(trx, request.customerId, [
        'provisioning',
        'active',
        'failed',
      ])
      for (const database of databases) await startDatabaseDeletion(trx, writers, database, details)
      return [...users.map((user) => user.id), ...databases.map((database) => database.id)]
    },
  }
}
