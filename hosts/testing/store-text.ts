// Everything a host's store holds, as text, for tests that search it for what must never be there in clear (a
// private key, a password): the SQLite files as bytes (free pages and the WAL included), or every row of the
// host's PostgreSQL schema.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { type Db, sql } from '../../core/index.ts'
import { testDatabaseSettings, testEngine } from '../../core/testing/test-store.ts'

/** The text of the store of the host started on `dataDir` with this run's engine. */
export async function storeText(dataDir: string): Promise<string> {
  const settings = testDatabaseSettings(dataDir)
  if (!settings.DATABASE_URL) {
    const files = existsSync(dataDir)
      ? readdirSync(dataDir).filter((name) => name.startsWith('plinth.sqlite'))
      : []
    if (files.length === 0) throw new Error(`No SQLite store in ${dataDir}`)
    return files.map((name) => readFileSync(join(dataDir, name)).toString('latin1')).join('\n')
  }
  const schema = settings.DATABASE_SCHEMA ?? 'public'
  const sql = postgres(settings.DATABASE_URL, { max: 1, onnotice: () => {} })
  try {
    const tables = await sql<{ name: string }[]>`
      select table_name as name from information_schema.tables where table_schema = ${schema}`
    if (tables.length === 0) throw new Error(`No tables in the PostgreSQL schema ${schema}`)
    const rows: string[] = []
    for (const { name } of tables)
      for (const row of await sql.unsafe(`select t::text as row from "${schema}"."${name}" t`))
        rows.push(String(row.row))
    return rows.join('\n')
  } finally {
    await sql.end()
  }
}

/**
 * Every row of every table of a test panel's store, as text: what the store holds in clear, on either engine (on
 * SQLite, search the file too when the panel has one: free pages keep what rows no longer do).
 */
export async function storeRowsText(db: Db): Promise<string> {
  const tables =
    testEngine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{ name: string }>`
          select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          db,
        )
  if (tables.rows.length === 0) throw new Error('The store has no tables')
  const rows: string[] = []
  for (const { name } of tables.rows) {
    const found = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)
    for (const row of found.rows) rows.push(JSON.stringify(row))
  }
  return rows.join('\n')
}
