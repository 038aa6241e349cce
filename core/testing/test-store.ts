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
const madeDatabases = new Set<string>()
let admin: postgres.Sql | undefined

/**
 * Names of this process's schemas and PostgreSQL databases carry its pid, so a later run can drop those of processes that
 * died without cleaning up (a killed test run) while leaving a concurrent run's alone.
 */
const owner = Number(process.env.PLINTH_TEST_STORE_OWNER ?? process.pid)
const prefix = `t${owner}_`
/** A child process given its parent's pid (`PLINTH_TEST_STORE_OWNER`) opens the parent's schemas and drops none. */
const ownsItsSchemas = owner === process.pid

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Drops the schemas and PostgreSQL databases left by test processes of this machine that are gone. */
async function sweepLeftovers(sql: postgres.Sql): Promise<void> {
  const ownerOf = (name: string) => Number(/^(?:plinth_)?t(\d+)_/.exec(name)?.[1] ?? Number.NaN)
  const schemaRows = await sql<
    { name: string }[]
  >`select nspname as name from pg_namespace where nspname ~ '^t[0-9]+_'`
  for (const { name } of schemaRows) {
    const pid = ownerOf(name)
    if (!isAlive(pid)) await sql.unsafe(`drop schema if exists "${name}" cascade`)
  }
  const databaseRows = await sql<
    { name: string }[]
  >`select datname as name from pg_database where datname ~ '^plinth_t[0-9]+_'`
  for (const { name } of databaseRows) {
    const pid = ownerOf(name)
    if (!isAlive(pid)) await sql.unsafe(`drop database if exists "${name}" with (force)`)
  }
}

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
  await sweepLeftovers(sql)
  process.once('beforeExit', async () => {
    for (const schema of schemas) await sql.unsafe(`drop schema if exists "${schema}" cascade`)
    for (const database of madeDatabases)
      await sql.unsafe(`drop database if exists "${database}" with (force)`)
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
  const schema = `${prefix}${path ? Bun.hash(path).toString(36) : crypto.randomUUID().replaceAll('-', '')}`
  const sql = await adminConnection()
  await sql.unsafe(`create schema if not exists "${schema}"`)
  if (ownsItsSchemas) schemas.add(schema)
  // Idle connections close soon: a test file that forgets to close a panel must not exhaust the server's.
  return openPostgresStore({ url: testDatabaseUrl, schema, poolSize: 10, idleTimeoutSeconds: 2 })
}

/**
 * A fresh, empty PostgreSQL database for a test that starts real servers and CLIs on it (`DATABASE_URL`), dropped
 * when this process exits; its URL.
 */
export async function createTestDatabase(): Promise<string> {
  const sql = await adminConnection()
  const name = `plinth_${prefix}${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`
  await sql.unsafe(`create database "${name}"`)
  madeDatabases.add(name)
  const url = new URL(testDatabaseUrl)
  url.pathname = `/${name}`
  return url.href
}

/**
 * The PostgreSQL settings of a real server or CLI a test starts on `dataDir`: `DATABASE_URL`, and a
 * `DATABASE_SCHEMA` of its own that the host makes. Every host started on the same `dataDir` shares the schema, as
 * the server and the CLI share DATA_DIR.
 */
export function postgresSettingsFor(dataDir: string): Record<string, string> {
  const schema = `${prefix}d${Bun.hash(dataDir).toString(36)}`
  if (ownsItsSchemas) schemas.add(schema)
  // The schemas a host makes are dropped with this process's at exit, or swept by a later run.
  void adminConnection().catch(() => {})
  return { DATABASE_URL: testDatabaseUrl, DATABASE_SCHEMA: schema }
}

/** The store settings of a host a test starts on `dataDir`: PostgreSQL's on a PostgreSQL run, none on SQLite. */
export function testDatabaseSettings(dataDir: string): Record<string, string> {
  return testEngine === 'sqlite' ? {} : postgresSettingsFor(dataDir)
}
