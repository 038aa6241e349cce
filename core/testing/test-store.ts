// The store a test panel runs on: SQLite in memory (or in a file), or, with PLINTH_TEST_STORE=postgres, a schema of
// its own in the PostgreSQL database of PLINTH_TEST_DATABASE_URL, dropped when the process exits.

import postgres from 'postgres'
import { openPostgresStore } from '../store/postgres-store.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import type { Store } from '../store/store.ts'

/** The engine the tests of this process run on. */
export const testEngine: 'sqlite' | 'postgres' =
  process.env.PLINTH_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'

/** The database the PostgreSQL runs use: the machine's server, trust auth, database `test`. */
export const testDatabaseUrl =
  process.env.PLINTH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

const schemas = new Set<string>()
let admin: postgres.Sql | undefined

/** One connection to make and drop schemas; the first failure says plainly that PostgreSQL is not there. */
async function adminConnection(): Promise<postgres.Sql> {
  if (admin) return admin
  // Idle for a second, it closes: a script (not a test run) can then end, dropping its schemas on the way out.
  const sql = postgres(testDatabaseUrl, { max: 1, idle_timeout: 1, onnotice: () => {} })
  try {
    await sql`select 1`
  } catch (error) {
    throw new Error(
      `The PostgreSQL test run needs a server at ${testDatabaseUrl} (PLINTH_TEST_DATABASE_URL): ${(error as Error).message}`,
    )
  }
  admin = sql
  process.once('beforeExit', async () => {
    for (const schema of schemas) await sql.unsafe(`drop schema if exists "${schema}" cascade`)
    await sql.end()
  })
  return sql
}

/**
 * A fresh store for one test panel. `path` names a store to reopen later in the same process (an upgrade test): a
 * SQLite file, or on PostgreSQL a schema named after it.
 */
export async function openTestStore(path?: string): Promise<Store> {
  if (testEngine === 'sqlite') return openSqliteStore({ path: path ?? ':memory:' })
  const schema = path ? `t_${Bun.hash(path).toString(36)}` : `t_${crypto.randomUUID().replaceAll('-', '')}`
  const sql = await adminConnection()
  await sql.unsafe(`create schema if not exists "${schema}"`)
  schemas.add(schema)
  // Idle connections close soon: a test file that forgets to close a panel must not exhaust the server's.
  return openPostgresStore({ url: testDatabaseUrl, schema, poolSize: 10, idleTimeoutSeconds: 2 })
}
