// How a resource's records go with their customer, as `resourceRoutes` declares it on the resource's DELETE route
// (see customer-resources.ts, which runs it in the customer's deletion job).

import type { Db, Trx } from '../store/store.ts'

/** How the DELETE route of a resource owned by customers removes a customer's records (see `resourceRoutes`). */
export interface CustomerCascade {
  /** Every row of the customer, whoever could see it: the deletion job is the installation's. */
  rowsOf(db: Db, customerId: string): Promise<readonly Record<string, unknown>[]>
  /** Removes one row as the DELETE route does, in `trx`: its children, then itself; answers the item it was. */
  remove(trx: Trx, row: Record<string, unknown>): Promise<Record<string, unknown>>
}
