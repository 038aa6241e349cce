// A Kysely dialect over bun:sqlite: Kysely's SQLite driver and compiler, fed an adapter with the statement API it
// expects, transactions that take the write lock up front, and reads run at once when the connection is free.

import type { Database, Statement } from 'bun:sqlite'
import { resolve } from 'node:path'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type DialectAdapter,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type SqliteStatement,
} from 'kysely'
import type { Store } from './store.ts'

type Binding = string | number | bigint | boolean | null | Uint8Array

function adaptStatement(statement: Statement): SqliteStatement {
  // Kysely asks whether a statement returns rows; bun:sqlite knows from the prepared columns. Asked once: reading
  // the columns crosses into native code on every call.
  const reader = statement.columnNames.length > 0
  return {
    reader,
    all: (parameters) => statement.all(...(parameters as Binding[])),
    run: (parameters) => statement.run(...(parameters as Binding[])),
    iterate: (parameters) => statement.iterate(...(parameters as Binding[])),
  }
}

/**
 * The one connection, lent to one user at a time (a query, or a transaction from `begin` to `commit`), as Kysely's
 * own mutex does for SQLite; kept here so the dialect can tell when nobody holds it.
 */
class ConnectionLock {
  #held: Promise<void> | null = null
  #release: (() => void) | null = null

  get isFree(): boolean {
    return this.#held === null
  }

  async take(): Promise<void> {
    while (this.#held) await this.#held
    this.#held = new Promise((resolve) => {
      this.#release = resolve
    })
  }

  give(): void {
    const release = this.#release
    this.#held = null
    this.#release = null
    release?.()
  }
}

/**
 * The connection locks of the files this process has open, by path. Two stores on one file in one process (two
 * test panels standing in for two instances of an installation) take turns through one lock, waiting without
 * blocking: with a lock each, the second would wait for the first's write lock in SQLite's busy handler, which
 * sleeps on the only thread, so the first could never finish and the second fails after the busy timeout.
 */
const fileLocks = new Map<string, { readonly lock: ConnectionLock; users: number }>()

/** The lock of `database`'s connection (shared with this process's other stores on its file), and its release. */
function lockOf(database: Database): { readonly lock: ConnectionLock; release(): void } {
  const file = database.filename
  if (!file || file === ':memory:') return { lock: new ConnectionLock(), release() {} }
  const key = resolve(file)
  let entry = fileLocks.get(key)
  if (!entry) {
    entry = { lock: new ConnectionLock(), users: 0 }
    fileLocks.set(key, entry)
  }
  entry.users++
  const shared = entry
  let released = false
  return {
    lock: shared.lock,
    release() {
      if (released) return
      released = true
      if (--shared.users === 0 && fileLocks.get(key) === shared) fileLocks.delete(key)
    },
  }
}

/**
 * `BEGIN IMMEDIATE` instead of Kysely's deferred `BEGIN`: a transaction that reads and then writes would otherwise
 * fail with SQLITE_BUSY when another process (the CLI beside the server) wrote in between, since busy_timeout
 * cannot help a read lock that must be upgraded. Taking the write lock first makes concurrent writers queue.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #lock: ConnectionLock

  constructor(database: SqliteDatabase, lock: ConnectionLock) {
    super({ database })
    this.#lock = lock
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.take()
    return super.acquireConnection()
  }

  override async releaseConnection(): Promise<void> {
    this.#lock.give()
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

/** Tables whose writes are counted, and how many statements that may write them this connection has run. */
interface TableWatch {
  readonly mentions: RegExp
  writes: number
}

/** A statement as this dialect keeps it: adapted for Kysely, and which watches its runs count for. */
interface KnownStatement {
  readonly adapted: SqliteStatement
  /** The watches it may write to, as of `checked` watches (watches are only ever added). */
  writes: readonly TableWatch[]
  checked: number
}

/**
 * Counts, per watch, the statements of this connection that may write a watched table: any statement but a plain
 * `select` that names one. Generous on purpose: a count too high costs a reread, one too low a stale answer.
 */
class WriteCounter {
  readonly #watches: TableWatch[] = []

  watch(tables: readonly string[]): TableWatch {
    const names = tables.map((table) => table.replace(/[^A-Za-z0-9_]/g, '')).join('|')
    // SQLite names are case-insensitive: `UPDATE Memberships` writes the same table.
    const watch = { mentions: new RegExp(`\\b(?:${names})\\b`, 'i'), writes: 0 }
    this.#watches.push(watch)
    return watch
  }

  /** Counts one run of `statement` (its SQL `sql`); which watches it writes is worked out once per statement. */
  seen(sql: string, statement: KnownStatement): void {
    if (statement.checked !== this.#watches.length) {
      const reads = /^\s*select\b/i.test(sql)
      statement.writes = reads ? [] : this.#watches.filter((watch) => watch.mentions.test(sql))
      statement.checked = this.#watches.length
    }
    for (const watch of statement.writes) watch.writes++
  }
}

/**
 * Kysely's SQLite adapter, and a way around Kysely's executor for compiled queries (`preparedQuery`): its
 * connection handling costs more per query than SQLite takes to answer a lookup by key.
 */
class BunSqliteAdapter extends SqliteAdapter {
  readonly #database: SqliteDatabase
  readonly #lock: ConnectionLock
  readonly #writes: WriteCounter

  constructor(database: SqliteDatabase, lock: ConnectionLock, writes: WriteCounter) {
    super()
    this.#database = database
    this.#lock = lock
    this.#writes = writes
  }

  // The driver lends the connection itself (ConnectionLock); Kysely's mutex on top would hide whether it is free.
  override get supportsMultipleConnections(): boolean {
    return true
  }

  /**
   * Runs `sql` now and returns its rows when that is what Kysely would do: `inTransaction` (the caller holds the
   * connection) or nobody holds it. Otherwise null: a transaction is open, and running now would read its
   * uncommitted rows, so the caller must queue through Kysely.
   */
  runNow(sql: string, parameters: readonly unknown[], inTransaction: boolean): unknown[] | null {
    if (!inTransaction && !this.#lock.isFree) return null
    const statement = this.#database.prepare(sql)
    if (statement.reader) return statement.all(parameters) as unknown[]
    statement.run(parameters)
    return []
  }

  /**
   * Counts the statements of this connection that may write `tables` (see WriteCounter); the other side of a
   * change, another connection's commit, shows in `pragma_data_version`.
   */
  countWrites(tables: readonly string[]): () => number {
    const watch = this.#writes.watch(tables)
    return () => watch.writes
  }
}

/** A dialect adapter that can run a compiled query without Kysely's executor (see `preparedQuery`). */
export interface RunsNow {
  runNow(sql: string, parameters: readonly unknown[], inTransaction: boolean): unknown[] | null
  countWrites(tables: readonly string[]): () => number
}

/** Whether `adapter` is this dialect's, which can run a compiled query at once. */
export function runsNow(adapter: DialectAdapter): adapter is DialectAdapter & RunsNow {
  return adapter instanceof BunSqliteAdapter
}

/** Listeners of every statement run, for {@link Store.observeStatements}. */
export type StatementListeners = Set<(sql: string) => void>

/**
 * How many prepared statements a connection keeps, by SQL. bun's own `query` cache keeps 20, fewer than the panel
 * runs in turn (a create and its provisioning alone run more), so statements were prepared again on most runs.
 * A bound on memory (a few kilobytes a statement), not a tuning knob.
 */
const maxStatements = 2000

/** Kysely's SQLite dialect running on a bun:sqlite database, with its statements prepared once (see above). */
export function bunSqliteDialect(database: Database, listeners: StatementListeners = new Set()): Dialect {
  const statements = new Map<string, Statement>()
  // What we know of each statement is kept beside it, so it is worked out once.
  const known = new WeakMap<Statement, KnownStatement>()
  const writes = new WriteCounter()
  const { lock, release } = lockOf(database)
  const adapter: SqliteDatabase = {
    close: () => {
      for (const statement of statements.values()) statement.finalize()
      statements.clear()
      release()
      database.close()
    },
    // Every statement, through Kysely or run now, is prepared here just before it runs.
    prepare: (sql) => {
      let statement = statements.get(sql)
      if (!statement) {
        // Past the bound, the oldest goes; bun finalizes it once nothing holds it.
        if (statements.size >= maxStatements) statements.delete(statements.keys().next().value as string)
        statement = database.prepare(sql)
        statements.set(sql, statement)
      }
      let kept = known.get(statement)
      if (!kept) {
        kept = { adapted: adaptStatement(statement), writes: [], checked: -1 }
        known.set(statement, kept)
      }
      writes.seen(sql, kept)
      for (const listener of listeners) listener(sql)
      return kept.adapted
    },
  }
  return {
    createAdapter: () => new BunSqliteAdapter(adapter, lock, writes),
    createDriver: () => new ImmediateSqliteDriver(adapter, lock),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  }
}
