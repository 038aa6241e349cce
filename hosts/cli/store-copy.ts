// `store copy --to postgres://…`: moves an installation from the embedded SQLite store in DATA_DIR into an empty
// PostgreSQL database. The target's tables are made by the same migrations the instances run, then every table's
// rows are copied as they are (sealed secrets stay sealed) from one consistent snapshot, and counted on both sides.

import { Database } from 'bun:sqlite'
import { sql } from 'kysely'
import { openPostgresStore, type Panel, type Store } from '../../core/host.ts'
import type { Trx } from '../../core/index.ts'
import { installationPlugins } from '../plinth-config.ts'
import { redactedUrl, SettingsError, type StandardSettings } from '../settings.ts'
import { installationProblems, openStandardPanel, secretPathOf, storePathOf } from '../standard-panel.ts'
import { startupProblems } from '../startup-failure.ts'
import { CliError, StartupFailure } from './cli-error.ts'
import {
  foreignKeyOrder,
  restoreTarget,
  type TargetState,
  targetColumns,
  targetState,
} from './copy-target.ts'
import { toPostgres } from './copy-values.ts'

/** Where `store copy` copies to. */
export interface CopyTarget {
  /** `postgres://user:password@host:5432/database`. */
  readonly url: string
  /** The schema to fill, made when missing (as `DATABASE_SCHEMA` is); null for the connection's own (`public`). */
  readonly schema: string | null
}

/** Reads `--to` and `--schema`; a missing or malformed one is a usage error (exit 2). */
export function copyTargetOf(to: string | undefined, schema: string | undefined): CopyTarget {
  const example = 'postgres://user:password@host:5432/database'
  if (!to)
    throw new CliError(`plinth: --to is required: the PostgreSQL database to copy into (${example})`, 2)
  let url: URL
  try {
    url = new URL(to)
  } catch {
    throw new CliError(`plinth: --to must be a URL like ${example}`, 2)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new CliError(`plinth: --to must start with postgres:// or postgresql://, not ${url.protocol}//`, 2)
  if (url.pathname.length <= 1) throw new CliError(`plinth: --to names no database: ${redactedUrl(to)}`, 2)
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new CliError(
      `plinth: --schema must be a plain PostgreSQL name (lower case letters, digits, _; 63 at most), not "${schema}"`,
      2,
    )
  return { url: to, schema: schema ?? null }
}

/** One table's rows, counted in the SQLite snapshot (null: PostgreSQL's own table) and in PostgreSQL after the copy. */
interface TableCount {
  readonly name: string
  readonly sqlite: number | null
  readonly postgres: number
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/** At most this many values per INSERT, well under PostgreSQL's 65,535 parameters a statement. */
const valuesPerInsert = 30_000

/**
 * Copies the installation in `settings.dataDir` into `target`, which must hold no table. Answers the report: a line
 * per table with its rows on both sides, the total, and which secret the instances need.
 */
export async function copyStore(settings: StandardSettings, target: CopyTarget): Promise<string[]> {
  const started = performance.now()
  // The source is the SQLite store in DATA_DIR whatever DATABASE_URL says: that is what is being moved.
  const source: StandardSettings = { ...settings, databaseUrl: null, databaseSchema: null }
  const missing = await installationProblems(source)
  if (missing.length > 0) throw new StartupFailure(new SettingsError(missing))
  const where = `${redactedUrl(target.url)}${target.schema ? ` (schema ${target.schema})` : ''}`
  const openTarget = () =>
    openPostgresStore({ url: target.url, poolSize: 1, ...(target.schema ? { schema: target.schema } : {}) })

  const before = await inspectTarget(openTarget(), where, target)
  // Opened once the way every command opens it: pending migrations applied, the secret checked, PLINTH_CONFIG read.
  try {
    const panel = await openStandardPanel(source, await installationPlugins(source), { existingOnly: true })
    await panel.close()
  } catch (error) {
    throw new StartupFailure(error)
  }

  const putBack = async () => {
    const store = openTarget()
    try {
      await restoreTarget(store.db, before, before.schema === null ? target.schema : null)
    } finally {
      await store.close()
    }
  }
  let panel: Panel
  try {
    // Made as an instance on DATABASE_URL makes it: the same plugins, migrations and secret.
    const onTarget = { ...settings, databaseUrl: target.url, databaseSchema: target.schema }
    panel = await openStandardPanel(onTarget, await installationPlugins(onTarget))
  } catch (error) {
    await putBack()
    throw new CliError(
      `plinth: the migrations failed on ${where}: ${startupProblems(error).join('; ')}; the target was put back as it was found`,
    )
  }
  let counts: TableCount[]
  try {
    counts = await copySnapshot(storePathOf(settings.dataDir), panel.store)
  } catch (error) {
    await panel.close()
    await putBack()
    throw new CliError(
      `plinth: the copy failed: ${(error as Error).message}; the target was put back as it was found, nothing copied`,
    )
  }
  await panel.close()
  return report(settings, target, where, counts, performance.now() - started)
}

/** The target's state before anything is written; refuses one that holds a table, or cannot be reached. */
async function inspectTarget(store: Store, where: string, target: CopyTarget): Promise<TargetState> {
  let state: TargetState
  try {
    state = await targetState(store)
  } catch (error) {
    throw new CliError(`plinth: cannot use the target ${where}: ${(error as Error).message}`)
  } finally {
    await store.close()
  }
  if (state.schema === null && target.schema === null)
    throw new CliError(
      `plinth: the target ${where} has no schema to make tables in (its search_path names none that exists): name one with --schema`,
      2,
    )
  if (state.tables.length > 0) {
    const shown = state.tables.slice(0, 10).join(', ') + (state.tables.length > 10 ? ', …' : '')
    throw new CliError(
      `plinth: the target ${where} is not empty: schema ${state.schema} holds ${state.tables.length} table${state.tables.length === 1 ? '' : 's'} (${shown}); store copy fills only an empty database or schema, and wrote nothing`,
    )
  }
  return state
}

/**
 * Reads the store at `storePath` inside one read transaction on a connection of its own (WAL: a snapshot fixed at
 * its first read, while a running server goes on writing; the panel's own transactions would take the write lock
 * and stall the server for the whole copy), and copies every table into `target` in one transaction, in
 * foreign-key order, counting rows on both sides before it commits.
 */
async function copySnapshot(storePath: string, target: Store): Promise<TableCount[]> {
  const snapshot = new Database(storePath, { readwrite: true, create: false, safeIntegers: true })
  try {
    snapshot.exec('PRAGMA busy_timeout = 5000')
    snapshot.exec('PRAGMA query_only = ON')
    snapshot.exec('BEGIN')
    try {
      return await copyTables(snapshot, target)
    } finally {
      snapshot.exec('ROLLBACK')
    }
  } finally {
    snapshot.close()
  }
}

async function copyTables(snapshot: Database, target: Store): Promise<TableCount[]> {
  const sourceTables = snapshot
    .query<{ name: string }, []>(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name",
    )
    .all()
    .map((row) => row.name)
  const targetTables = new Set(await target.tables())
  const columnTypes = await targetColumns(target.db)
  const unknown = sourceTables.filter((table) => !targetTables.has(table))
  if (unknown.length > 0)
    throw new Error(
      `the SQLite store holds tables no migration of this installation makes: ${unknown.join(', ')} (a plugin left out of PLINTH_CONFIG? mount it, or drop them from the SQLite store)`,
    )
  await refuseOtherMigrations(snapshot, target)
  const columnsOf = new Map<string, string[]>()
  for (const table of sourceTables) {
    const columns = snapshot
      .query<{ name: string }, [string]>('select name from pragma_table_info(?)')
      .all(table)
      .map((row) => row.name)
    const lost = columns.filter((column) => !columnTypes.get(table)?.has(column))
    if (lost.length > 0)
      throw new Error(`${table} has columns PostgreSQL's ${table} lacks: ${lost.join(', ')}`)
    columnsOf.set(table, columns)
  }
  const order = await foreignKeyOrder(target.db, sourceTables)
  const inSnapshot = new Map(
    sourceTables.map((table) => [
      table,
      Number(snapshot.query<{ n: bigint }, []>(`select count(*) as n from ${quoted(table)}`).get()?.n ?? 0),
    ]),
  )
  const counted = await target.transaction(
    async (trx) => {
      await sql`set constraints all deferred`.execute(trx)
      // The migrations seeded some tables (the default brand, the local node, the secret's check): the source's
      // rows, which the same migrations seeded there, take their place.
      for (const table of [...order].reverse()) await sql`delete from ${sql.table(table)}`.execute(trx)
      const copied = new Map<string, number>()
      for (const table of order)
        copied.set(table, await copyTable(snapshot, trx, table, columnsOf.get(table) ?? [], columnTypes))
      const result: TableCount[] = []
      for (const table of order) {
        const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(trx)
        const postgres = Number(rows[0]?.n ?? -1)
        const sqlite = inSnapshot.get(table) ?? -1
        if (postgres !== sqlite || copied.get(table) !== sqlite)
          throw new Error(
            `${table} has ${sqlite} rows in the SQLite snapshot, ${copied.get(table)} were copied and PostgreSQL counts ${postgres}`,
          )
        result.push({ name: table, sqlite, postgres })
      }
      return result
    },
    // Nobody else writes to an empty target; a serializable snapshot would buy nothing here.
    { isolation: 'read committed' },
  )
  // Fresh statistics, so the instances' first queries are planned with the real row counts.
  for (const table of order) await sql`analyze ${sql.table(table)}`.execute(target.db)
  const own: TableCount[] = []
  for (const table of [...targetTables].filter((name) => !sourceTables.includes(name)).sort()) {
    const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(
      target.db,
    )
    own.push({ name: table, sqlite: null, postgres: Number(rows[0]?.n ?? 0) })
  }
  return [...counted.sort((a, b) => a.name.localeCompare(b.name)), ...own]
}

/**
 * Refuses when the two stores' `plinth_migrations` differ (a plugin the SQLite store had and PLINTH_CONFIG no longer
 * mounts): copied over, PostgreSQL would record migrations of tables it does not have.
 */
async function refuseOtherMigrations(snapshot: Database, target: Store): Promise<void> {
  const key = (row: { owner: string; id: string }) => `${row.owner}/${row.id}`
  const inSqlite = new Set(
    snapshot
      .query<{ owner: string; id: string }, []>('select owner, id from plinth_migrations')
      .all()
      .map(key),
  )
  const { rows } = await sql<{ owner: string; id: string }>`select owner, id from plinth_migrations`.execute(
    target.db,
  )
  const inPostgres = new Set(rows.map(key))
  const onlySqlite = [...inSqlite].filter((name) => !inPostgres.has(name)).sort()
  const onlyPostgres = [...inPostgres].filter((name) => !inSqlite.has(name)).sort()
  if (onlySqlite.length > 0)
    throw new Error(
      `the SQLite store records migrations this installation does not have: ${onlySqlite.join(', ')} (mount their plugins in PLINTH_CONFIG)`,
    )
  if (onlyPostgres.length > 0)
    throw new Error(
      `PostgreSQL's migrations include ones the SQLite store lacks: ${onlyPostgres.join(', ')} (open the SQLite store with this version first: \`npm run panel -- init\`)`,
    )
}

/** Copies one table's rows from the snapshot in batches; answers how many. */
async function copyTable(
  snapshot: Database,
  trx: Trx,
  table: string,
  columns: readonly string[],
  columnTypes: Map<string, Map<string, string>>,
): Promise<number> {
  const types = columns.map((column) => columnTypes.get(table)?.get(column) ?? 'text')
  const batchSize = Math.max(1, Math.min(1000, Math.floor(valuesPerInsert / Math.max(1, columns.length))))
  const names = sql.join(columns.map((column) => sql.id(column)))
  const select = snapshot.prepare<Record<string, unknown>, []>(
    `select ${columns.map(quoted).join(', ')} from ${quoted(table)}`,
  )
  let copied = 0
  let batch: unknown[][] = []
  const flush = async () => {
    const rows = sql.join(batch.map((values) => sql`(${sql.join(values)})`))
    await sql`insert into ${sql.table(table)} (${names}) values ${rows}`.execute(trx)
    copied += batch.length
    batch = []
  }
  try {
    for (const row of select.iterate()) {
      const number = copied + batch.length + 1
      batch.push(
        columns.map((column, index) =>
          toPostgres(row[column], types[index] ?? 'text', `${table}.${column}, row ${number}`),
        ),
      )
      if (batch.length >= batchSize) await flush()
    }
    if (batch.length > 0) await flush()
  } finally {
    select.finalize()
  }
  return copied
}

/** The lines `store copy` prints: a table of counts, the total, and what to do next. */
function report(
  settings: StandardSettings,
  target: CopyTarget,
  where: string,
  counts: readonly TableCount[],
  elapsedMs: number,
): string[] {
  const width = Math.max('TABLE'.length, ...counts.map((count) => count.name.length))
  const cell = (value: string, size: number) => value.padStart(size)
  const line = (name: string, sqlite: string, postgres: string, note = '') =>
    `${name.padEnd(width)}  ${cell(sqlite, 8)}  ${cell(postgres, 10)}${note}`.trimEnd()
  const copied = counts.filter((count) => count.sqlite !== null)
  const rows = copied.reduce((sum, count) => sum + (count.sqlite ?? 0), 0)
  const secret = settings.secret
    ? 'The secret is PLINTH_SECRET: set the same PLINTH_SECRET on every instance that uses this database.'
    : `The secret is in ${secretPathOf(settings.dataDir)} (not in the database): give every instance that uses this database the same one (copy the file into its DATA_DIR, or set PLINTH_SECRET to its contents).`
  return [
    `From ${storePathOf(settings.dataDir)} (read in one transaction: a consistent snapshot) into ${where}:`,
    line('TABLE', 'SQLITE', 'POSTGRESQL'),
    ...counts.map((count) =>
      count.sqlite === null
        ? line(
            count.name,
            '-',
            String(count.postgres),
            "  PostgreSQL's own (its migrations made it), not copied",
          )
        : line(count.name, String(count.sqlite), String(count.postgres)),
    ),
    `Copied ${copied.length} tables, ${rows} rows in ${(elapsedMs / 1000).toFixed(2)} s; every table has as many rows in PostgreSQL as in the snapshot.`,
    secret,
    `Next: stop the server on DATA_DIR (what it writes after the snapshot is not copied), then start the instances with DATABASE_URL=${redactedUrl(target.url)}${target.schema ? ` DATABASE_SCHEMA=${target.schema}` : ''} and the same PLINTH_CONFIG.`,
  ]
}
