// Holds on customers: suspending all of a customer's resources for a holder (billing) through every suspension
// handler, remembering what was suspended so that ending the hold restores exactly that.

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
      const restored: HeldResource[] = []
      for (const handler of handlers.list()) {
        const ids = rows.filter((row) => row.kind === handler.name).map((row) => row.resource_id)
        if (ids.length === 0) continue
        for (const id of await handler.restore(trx, { ...request, ids }))
          restored.push({ kind: handler.name, id })
      }
      await forget(trx, request.customerId, request.holder)
      return restored
    },

    async isHeld(db, customerId, holder) {
      const row = await db
        .withTables<CustomersTables>()
        .selectFrom('customer_holds')
        .select('holder')
        .where('customer_id', '=', customerId)
        .where('holder', '=', holder)
        .executeTakeFirst()
      return row !== undefined
    },

    async remove(trx, request) {
      const removed: HeldResource[] = []
      for (const handler of handlers.list()) {
        for (const id of await handler.remove(trx, request)) removed.push({ kind: handler.name, id })
      }
      await forget(trx, request.customerId, null)
      return removed
    },
  }
}

/** Ends the holds on a customer: `holder`'s, or every one when null. */
async function forget(trx: Trx, customerId: string, holder: string | null): Promise<void> {
  for (const table of ['customer_held_resources', 'customer_holds'] as const) {
    let query = tables(trx).deleteFrom(table).where('customer_id', '=', customerId)
    if (holder !== null) query = query.where('holder', '=', holder)
    await query.execute()
  }
}
