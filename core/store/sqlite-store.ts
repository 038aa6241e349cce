// The embedded default store: one SQLite file under DATA_DIR (WAL, foreign keys, busy timeout), or memory for tests.

import { Database } from 'bun:sqlite'
import { chmodSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { Kysely, sql } from 'kysely'
import { bunSqliteDialect, type StatementListeners } from './bun-sqlite-dialect.ts'
import { localNotifications } from './local-notifications.ts'
import { checkChannel, collectNotices, noticeOnCommit } from './notices.ts'
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
  // One process is the whole audience SQLite has: every store of this process on the same file hears a notice.
  const notices = localNotifications(onDisk ? resolve(options.path) : `memory:${crypto.randomUUID()}`)
  let isOpen = true
  return {
    dialect: 'sqlite',
    db,
    async transaction(work) {
      const { result, channels } = await db
        .transaction()
        .execute((trx) => collectNotices(trx, () => work(trx)))
      // Committed: what the notices announce is there for whoever they wake.
      for (const channel of channels) notices.deliver(channel)
      return result
    },
    async notify(on, channel) {
      if (!(await noticeOnCommit(on, channel))) notices.deliver(channel)
    },
    async listen(channel, listener) {
      const stop = notices.listen(checkChannel(channel), listener)
      // Listening has begun: look once, for what was notified before.
      listener()
      return async () => stop()
    },
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
