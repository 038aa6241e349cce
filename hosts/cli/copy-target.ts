// The PostgreSQL side of `store copy`: what the target schema holds before anything is written, the order its
// foreign keys ask rows to arrive in, its column types, and putting it back as it was found when a copy fails.

import { sql } from 'kysely'
import type { Db, Store } from '../../core/index.ts'

/** The target schema before the copy: found by the connection's search path, as the panel's instances find it. */
export interface TargetState {
  /** The schema tables go into; null when the search path names none that exists (yet). */
  readonly schema: string | null
  /** Its tables: any at all and the copy is refused. */
  readonly tables: readonly string[]
  /** Its functions (`name(args)`), which a failed copy leaves alone while dropping those the migrations made. */
  readonly functions: readonly string[]
}

/** Reads the target schema's state. */
export async function targetState(store: Store): Promise<TargetState> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(store.db)
  const schema = rows[0]?.schema ?? null
  if (schema === null) return { schema, tables: [], functions: [] }
  return { schema, tables: (await store.tables()).sort(), functions: await functionsOf(store.db) }
}

async function functionsOf(db: Db): Promise<string[]> {
  const { rows } = await sql<{ signature: string }>`
    select quote_ident(p.proname) || '(' || pg_get_function_identity_arguments(p.oid) || ')' as signature
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema()`.execute(db)
  return rows.map((row) => row.signature)
}

/** The target's columns: table → column → PostgreSQL type (`information_schema.columns.data_type`). */
export async function targetColumns(db: Db): Promise<Map<string, Map<string, string>>> {
  const { rows } = await sql<{ table: string; column: string; type: string }>`
    select table_name as "table", column_name as "column", data_type as "type"
    from information_schema.columns where table_schema = current_schema()`.execute(db)
  const tables = new Map<string, Map<string, string>>()
  for (const row of rows) {
    const columns = tables.get(row.table) ?? new Map<string, string>()
    columns.set(row.column, row.type)
    tables.set(row.table, columns)
  }
  return tables
}

/**
 * `tables` ordered so every table comes after those its foreign keys point to (then by name), read from
 * PostgreSQL's catalog. Deferrable keys are left out: the copy defers them to its commit. A cycle of keys that are
 * checked at once could be filled in no order, so it is refused, naming the tables.
 */
export async function foreignKeyOrder(db: Db, tables: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select child.relname as child, parent.relname as parent
    from pg_constraint c
    join pg_class child on child.oid = c.conrelid
    join pg_class parent on parent.oid = c.confrelid
    join pg_namespace n on n.oid = child.relnamespace
    where c.contype = 'f' and not c.condeferrable and n.nspname = current_schema()`.execute(db)
  const wanted = new Set(tables)
  const parents = new Map(tables.map((table) => [table, new Set<string>()]))
  for (const { child, parent } of rows)
    if (wanted.has(child) && wanted.has(parent)) parents.get(child)?.add(parent)
  const ordered: string[] = []
  const placed = new Set<string>()
  for (;;) {
    const ready = [...parents.keys()]
      .filter((table) => !placed.has(table) && [...(parents.get(table) ?? [])].every((p) => placed.has(p)))
      .sort()
    if (ready.length === 0) break
    for (const table of ready) {
      ordered.push(table)
      placed.add(table)
    }
  }
  const cyclic = tables.filter((table) => !placed.has(table)).sort()
  if (cyclic.length > 0)
    throw new Error(
      `the foreign keys of ${cyclic.join(', ')} form a cycle checked row by row, so no order of copying satisfies them`,
    )
  return ordered
}

/**
 * Puts the target back as `before` found it after a failed copy: `madeSchema` dropped when the copy made it, else the
 * tables and functions the migrations made (the schema held no table before, so every table in it is the copy's).
 */
export async function restoreTarget(db: Db, before: TargetState, madeSchema: string | null): Promise<void> {
  if (madeSchema !== null) {
    await sql`drop schema if exists ${sql.id(madeSchema)} cascade`.execute(db)
    return
  }
  const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
  for (const { name } of tables.rows) await sql`drop table if exists ${sql.table(name)} cascade`.execute(db)
  const kept = new Set(before.functions)
  for (const signature of await functionsOf(db))
    if (!kept.has(signature)) await sql.raw(`drop function if exists ${signature} cascade`).execute(db)
}
