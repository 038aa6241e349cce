// Row locks for claims of queued work, worded once for both engines so no plugin branches on the engine: on
// PostgreSQL real row locks, on SQLite nothing, since every SQLite transaction already holds the one write lock.

import type { SelectQueryBuilder } from 'kysely'
import { isPostgres } from './engine.ts'
import type { Db } from './store.ts'

/**
 * The rows `query` selects, taken as work by this transaction: locked until it ends, and passed over (not waited
 * for) by other instances' claims, so instances claiming at once take different rows (PostgreSQL
 * `FOR UPDATE SKIP LOCKED`). Run the claim in a `read committed` transaction (`store.transaction(work,
 * { isolation: 'read committed' })`) and write the claim (owner, lease) before it commits.
 * @example const due = await claimRows(trx, trx.selectFrom('deliveries').selectAll().where(...).limit(10)).execute()
 */
export function claimRows<DB, TB extends keyof DB, O>(
  trx: Db,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return isPostgres(trx) ? query.forUpdate().skipLocked() : query
}

/**
 * The rows `query` selects, locked until this transaction ends: another transaction locking them waits, then
 * reads what this one committed (in `read committed`). For a count that must hold while the claim is written (the
 * attempts in flight to one endpoint): lock the row it hangs on, then count. Lock rows in one order (by id) in
 * every transaction, so two cannot wait for each other (PostgreSQL `FOR UPDATE`).
 */
export function lockRows<DB, TB extends keyof DB, O>(
  trx: Db,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return isPostgres(trx) ? query.forUpdate() : query
}
