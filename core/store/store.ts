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

/** How a transaction runs besides the default: only claims of queued work, and records of their ends, need it. */
export interface TransactionOptions {
  /**
   * `read committed` for claims of queued work (the kernel's jobs, a plugin's delivery queue), which lock what
   * they read (`claimRows`, `lockRows`) instead of relying on serializable isolation: instances claiming at once
   * then take different rows, or wait for each other's lock and read what the other committed, without failing
   * each other and running again. Also for recording how claimed work ended, with writes conditional on the claim.
   * SQLite ignores it (its transactions hold the one write lock). Default `serializable`.
   */
  readonly isolation?: 'serializable' | 'read committed'
}

/** Stops a {@link Store.listen}ing listener. */
export type StopListening = () => Promise<void>

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
   * touch the store). With `isolation: 'read committed'`, only what `work` locks holds still (see
   * {@link TransactionOptions}).
   */
  transaction<T>(work: (trx: Trx) => Promise<T>, options?: TransactionOptions): Promise<T>
  /**
   * Calls `listener` with the SQL of every statement just before it runs, in the caller's async context (test
   * panels check which requests wrote). Returns how to stop listening.
   */
  observeStatements(listener: (sql: string) => void): () => void
  /**
   * Tells every panel instance on this store that there is new work on `channel` once `db`'s transaction commits,
   * and nothing if it rolls back; outside a transaction, at once. A wake-up, not a message: listeners read what
   * is there (it may have been taken already), and polling remains the safety net. Notices of one channel in one
   * transaction are one. PostgreSQL: `pg_notify` inside the transaction, which the server delivers on commit to
   * every instance listening (this one included); SQLite: the listeners of this process on the same file, after
   * the commit (a CLI process beside the server is not told; the server polls).
   * @example await store.notify(trx, 'webhooks.deliveries')
   */
  notify(db: Db, channel: string): Promise<void>
  /**
   * Calls `listener` after every committed notice on `channel`, from any instance; and once as soon as it listens,
   * and again whenever the listening connection was made again, since notices sent while not listening are lost:
   * look for work then. Resolves once listening. PostgreSQL listens on a connection of its own, beside the pool.
   * Channels are named `<owner>.<name>` (`jobs`, `events` for the kernel; `webhooks.deliveries`): lower case,
   * digits, `.` and `_`.
   */
  listen(channel: string, listener: () => void): Promise<StopListening>
  /**
   * The names of the tables the store holds, read through `db` (inside a migration, its transaction): its own, not
   * another schema's of the same PostgreSQL database.
   */
  tables(db?: Db): Promise<string[]>
  /** True until `close()` has been called. */
  readonly isOpen: boolean
  close(): Promise<void>
}
