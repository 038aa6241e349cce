// Holds on customers: suspending all of a customer's resources for a holder (billing) through every suspension
// handler, remembering what each hold covers so that ending it restores exactly what no other hold still covers.

import type { ExtensionRegistry, Trx } from '../../core/index.ts'
import type { CustomerSuspensions, HeldResource, SuspensionHandler } from './contract.ts'
import type { CustomersTables } from './migrations.ts'

const tables = (db: Trx) => db.withTables<CustomersTables>()

/** The suspension service over the handlers other plugins registered. */
export function createCustomerSuspensions(
  handlers: ExtensionRegistry<SuspensionHandler>,
): CustomerSuspensions {
  return {
    async hold(trx, request) {
      const holds = tables(trx)
      const existing = await holds
        .selectFrom('customer_holds')
        .select('holder')
        .where('customer_id', '=', request.customerId)
        .where('holder', '=', request.holder)
        .executeTakeFirst()
      if (existing) return []
      await holds
        .insertInto('customer_holds')
        .values({
          customer_id: request.customerId,
          holder: request.holder,
          reason: request.reason,
          held_at: new Date().toISOString(),
        })
        .execute()
      const held: HeldResource[] = []
      for (const handler of handlers.list()) {
        for (const id of await handler.suspend(trx, request)) held.push({ kind: handler.name, id })
      }
      if (held.length > 0) {
        await holds
          .insertInto('customer_held_resources')
          .values(
            held.map((resource) => ({
              customer_id: request.customerId,
              holder: request.holder,
              kind: resource.kind,
              resource_id: resource.id,
            })),
          )
          .execute()
      }
      return held
    },

    async release(trx, request) {
      const holds = tables(trx)
      const rows = await holds
        .selectFrom('customer_held_resources')
        .select(['kind', 'resource_id'])
        .where('customer_id', '=', request.customerId)
        .where('holder', '=', request.holder)
        .execute()
      await forget(trx, request.customerId, request.holder)
      // What another holder still covers stays suspended until that hold ends too.
      const stillHeld = new Set(
        (
          await holds
            .selectFrom('customer_held_resources')
            .select(['kind', 'resource_id'])
            .where('customer_id', '=', request.customerId)
            .execute()
        ).map((row) => `${row.kind}/${row.resource_id}`),
      )
      const restored: HeldResource[] = []
      for (const handler of handlers.list()) {
        const ids = rows
          .filter((row) => row.kind === handler.name && !stillHeld.has(`${row.kind}/${row.resource_id}`))
          .map((row) => row.resource_id)
        if (ids.length === 0) continue
        for (const id of await handler.restore(trx, { ...request, ids }))
          restored.push({ kind: handler.name, id })
      }
      return restored
    },

    async holdersOf(db, resource) {
      const rows = await db
        .withTables<CustomersTables>()
        .selectFrom('customer_held_resources')
        .select('holder')
        .where('customer_id', '=', resource.customerId)
        .where('kind', '=', resource.kind)
        .where('resource_id', '=', resource.id)
        .execute()
      return rows.map((row) => row.holder)
    },

    async remove(trx, request) {
      const removed: HeldResource[] = []
      for (const handler of handlers.list()) {
        for (const id of await handler.remove(trx, request)) removed.push({ kind: handler.name, id })
      }
      await forget(trx, request.customerId, request.holder)
      return removed
    },
  }
}

/** Ends `holder`'s hold on a customer, and forgets what it covered. */
async function forget(trx: Trx, customerId: string, holder: string): Promise<void> {
  for (const table of ['customer_held_resources', 'customer_holds'] as const) {
    await tables(trx)
      .deleteFrom(table)
      .where('customer_id', '=', customerId)
      .where('holder', '=', holder)
      .execute()
  }
}
