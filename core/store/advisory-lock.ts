// One instance at a time: a lock on a name, held until the transaction ends, for work that must not run on two
// instances at once (the outbox dispatcher, which hands events over in order).

import { sql } from 'kysely'
import { isPostgres } from './engine.ts'
import type { Trx } from './store.ts'

/**
 * Tries to take the lock `name` for the rest of `trx`, without waiting: true when this transaction holds it (and
 * no other transaction of any instance can, until it ends), false when another holds it now. PostgreSQL: a
 * transaction-scoped advisory lock; SQLite: always true, since the transaction holds the one write lock.
 *
 * On PostgreSQL, in a serializable transaction, take it first and then lock the rows it reads (`lockRows`): its
 * snapshot may predate the commit of the holder before it, and locking a row that holder changed fails the
 * transaction at once (it is run again with a fresh snapshot) instead of acting on rows already handled.
 */
export async function tryExclusiveLock(trx: Trx, name: string): Promise<boolean> {
  if (!isPostgres(trx)) return true
  const result = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(hashtext(${name})) as held`.execute(
    trx,
  )
  return result.rows[0]?.held === true
}
