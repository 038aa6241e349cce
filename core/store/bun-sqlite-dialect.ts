// A Kysely dialect over bun:sqlite: Kysely's SQLite driver and compiler, fed an adapter with the statement API it
// expects, and transactions that take the write lock up front.

import type { Database, Statement } from 'bun:sqlite'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type SqliteStatement,
} from 'kysely'

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
 * `BEGIN IMMEDIATE` instead of Kysely's deferred `BEGIN`: a transaction that reads and then writes would otherwise
 * fail with SQLITE_BUSY when another process (the CLI beside the server) wrote in between, since busy_timeout
 * cannot help a read lock that must be upgraded. Taking the write lock first makes concurrent writers queue.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

/** Kysely's SQLite dialect running on a bun:sqlite database (statements are cached by bun's `query`). */
export function bunSqliteDialect(database: Database): Dialect {
  // bun's `query` caches statements by SQL; the adapters are kept beside them so each is made once.
  const adapted = new WeakMap<Statement, SqliteStatement>()
  const adapter: SqliteDatabase = {
    close: () => database.close(),
    prepare: (sql) => {
      const statement = database.query(sql)
      let known = adapted.get(statement)
      if (!known) {
        known = adaptStatement(statement)
        adapted.set(statement, known)
      }
      return known
    },
  }
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ImmediateSqliteDriver({ database: adapter }),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  }
}
