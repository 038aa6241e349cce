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

/** How the kernel runs a transaction besides the default. Plugins never need it. */
export interface TransactionOptions {
  /**
   * `read committed` for the kernel's queue claims, which lock the rows they take (`FOR UPDATE SKIP LOCKED`)
   * instead of relying on serializable isolation, so instances claiming at once take different rows without
   * failing each other. Default `serializable`.
   */
  readonly isolation?: 'serializable' | 'read committed'
}

/** An open store. The embedded default is SQLite; PostgreSQL implements the same contract. */
export interface Store {
  /** `sqlite` or `postgres`: for the rare query that must differ (upserts, locking). */
  readonly dialect: 'sqlite' | 'postgres'
  readonly db: Db
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. What it reads is what
   * it writes against: a check and the write that depends on it cannot interleave with another transaction's
   * (SQLite takes the write lock when the transaction begins; PostgreSQL runs it serializable and runs it again,
   * from the start, when it would not serialize or lost a deadlock, so `work` may run more than once and must only
   * touch the store).
   */
  transaction<T>(work: (trx: Trx) => Promise<T>, options?: TransactionOptions): Promise<T>
  /**
   * Calls `listener` with the SQL of every statement just before it runs, in the caller's async context (test
   * panels check which requests wrote). Returns how to stop listening.
   */
  observeStatements(listener: (sql: string) => void): () => void
  /**
   * The names of the tables the store holds, read through `db` (inside a migration, its transaction): its own, not
   * another schema's of the same PostgreSQL database.
   */
  tables(db?: Db): Promise<string[]>
  /** True until `close()` has been called. */
  readonly isOpen: boolean
  close(): Promise<void>
}
