// The store contract: one dialect-neutral query layer (Kysely) over whichever database a deployment runs.

import type { Kysely, Transaction } from 'kysely'

/**
 * The database as the kernel hands it out: no tables known up front. Each owner narrows it to its own tables
 * with `db.withTables<MyTables>()`, so a plugin's queries are typed without the kernel knowing its schema.
 */
// biome-ignore lint/complexity/noBannedTypes: Kysely's empty database type; owners add tables with withTables
export type BaseDatabase = {}

/** A query builder on the store, typed by the tables its owner declares. */
export type Db<Tables = BaseDatabase> = Kysely<Tables>

/** A query builder inside a transaction. */
export type Trx<Tables = BaseDatabase> = Transaction<Tables>

/** An open store. The embedded default is SQLite; PostgreSQL implements the same contract. */
export interface Store {
  /** `sqlite` or `postgres`: for the rare query that must differ (upserts, locking). */
  readonly dialect: 'sqlite' | 'postgres'
  readonly db: Db
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>
  /**
   * Calls `listener` with the SQL of every statement just before it runs, in the caller's async context (test
   * panels check which requests wrote). Returns how to stop listening.
   */
  observeStatements(listener: (sql: string) => void): () => void
  /** True until `close()` has been called. */
  readonly isOpen: boolean
  close(): Promise<void>
}
