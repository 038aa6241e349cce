// Which engine a query builder runs on, for the few statements the kernel words per engine (row locks of queue
// claims, advisory locks). Plugins never ask: the store contract is the same on both.

import { PostgresAdapter } from 'kysely'
import type { Db } from './store.ts'

/** Whether `db` (or a transaction of it) runs on PostgreSQL. */
export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}
