// A Kysely dialect over bun:sqlite: Kysely's own SQLite driver, fed an adapter with the statement API it expects.

import type { Database, Statement } from 'bun:sqlite'
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from 'kysely'

type Binding = string | number | bigint | boolean | null | Uint8Array

function adaptStatement(statement: Statement): SqliteStatement {
  return {
    // Kysely asks whether a statement returns rows; bun:sqlite knows from the prepared columns.
    get reader() {
      return statement.columnNames.length > 0
    },
    all: (parameters) => statement.all(...(parameters as Binding[])),
    run: (parameters) => statement.run(...(parameters as Binding[])),
    iterate: (parameters) => statement.iterate(...(parameters as Binding[])),
  }
}

/** Kysely's SQLite dialect running on a bun:sqlite database (statements are cached by bun's `query`). */
export function bunSqliteDialect(database: Database): SqliteDialect {
  const adapter: SqliteDatabase = {
    close: () => database.close(),
    prepare: (sql) => adaptStatement(database.query(sql)),
  }
  return new SqliteDialect({ database: adapter })
}
