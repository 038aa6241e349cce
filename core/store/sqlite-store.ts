// The embedded default store: one SQLite file under DATA_DIR (WAL, foreign keys, busy timeout), or memory for tests.

import { Database } from 'bun:sqlite'
import { chmodSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, sql } from 'kysely'
import { bunSqliteDialect, type StatementListeners } from './bun-sqlite-dialect.ts'
import type { BaseDatabase, Store } from './store.ts'

export interface SqliteStoreOptions {
  /** File path of the database, or `:memory:`. The directory is created if missing. */
  readonly path: string
  /** How long a statement waits for another process's lock (the CLI beside the server), in ms. Default 5000. */
  readonly busyTimeoutMs?: number
}

/** Opens (and creates) a SQLite store. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  const onDisk = options.path !== ':memory:'
  // The store holds password and token hashes: keep it (and its directory, when we make it) to the owner.
  if (onDisk) mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 })
  const database = new Database(options.path, { create: true, strict: true })
  if (onDisk) chmodSync(options.path, 0o600)
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`)
  database.exec('PRAGMA journal_mode = WAL')
  database.exec('PRAGMA foreign_keys = ON')
  database.exec('PRAGMA synchronous = NORMAL')
  const listeners: StatementListeners = new Set()
  const db = new Kysely<BaseDatabase>({ dialect: bunSqliteDialect(database, listeners) })
  let isOpen = true
  return {
    dialect: 'sqlite',
    db,
    transaction: (work) => db.transaction().execute(work),
    async tables(on = db) {
      const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
        on,
      )
      return rows.rows.map((row) => row.name)
    },
    observeStatements(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    get isOpen() {
      return isOpen
    },
    async close() {
      if (!isOpen) return
      isOpen = false
      await db.destroy()
    },
  }
}
