// One instance at a time: a lock on a name, held until the transaction ends, for work that must not run on two
// instances at once (the outbox dispatcher, which hands events over in order).

import { sql } from 'kysely'
import { isPostgres } from './engine.ts'
import type { Trx } from './store.ts'

/**
 * Tries to take the lock `name` for the rest of `trx`, without waiting: true when this transaction holds it (and
 * no other transaction of any instance can, until it ends), false when another holds it now. PostgreSQL: a
 * transaction-scoped advisory lock, named within the store's schema; SQLite: always true, since the transaction
 * holds the one write lock.
 *
 * Take it first, in a `read committed` transaction: each statement after it then sees all that the holder before
 * committed. (A serializable transaction reads from a snapshot its first statement took, which may predate that.)
 */
export async function tryExclusiveLock(trx: Trx, name: string): Promise<boolean> {
  if (!isPostgres(trx)) return true
  // Named within the schema: installations (or test panels) in other schemas of the database do not contend.
  const result = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(
    hashtext(current_schema() || '.' || ${name})) as held`.execute(trx)
  return result.rows[0]?.held === true
}
