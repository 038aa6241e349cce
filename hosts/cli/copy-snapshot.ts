// Copies an installation's rows from its SQLite store into a PostgreSQL store whose tables the same migrations made:
// one read transaction on the SQLite side (a consistent snapshot), one transaction on PostgreSQL, every table's rows
// counted on both sides before it commits.

import { Database } from 'bun:sqlite'
import { sql } from 'kysely'
import type { Store } from '../../core/host.ts'
import type { Trx } from '../../core/index.ts'
import { foreignKeyOrder, targetColumns } from './copy-target.ts'
import { toPostgres } from './copy-values.ts'

/** One table's rows, counted in the SQLite snapshot (null: PostgreSQL's own table) and in PostgreSQL after the copy. */
export interface TableCount {
  readonly name: string
  readonly sqlite: number | null
  readonly postgres: number
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/** At most this many values per INSERT, well under PostgreSQL's 65,535 parameters a statement. */
const valuesPerInsert = 30_000

/**
 * Reads the store at `storePath` inside one read transaction on a connection of its own (WAL: a snapshot fixed at
 * its first read, while a running server goes on writing; the panel's own transactions would take the write lock
 * and stall the server for the whole copy), and copies every table into `target` in one transaction, in
 * foreign-key order, counting rows on both sides before it commits.
 */
export async function copySnapshot(storePath: string, target: Store): Promise<TableCount[]> {
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
