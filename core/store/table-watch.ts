// Cheap change detection for a few tables, so a value derived from them can be kept until they change.

import { type RawBuilder, sql } from 'kysely'
import { runsNow } from './bun-sqlite-dialect.ts'
import { isPostgres } from './engine.ts'
import type { Db } from './store.ts'

/**
 * The tables PostgreSQL keeps a version of (`change_versions`, bumped by a statement trigger in each writing
 * transaction: kernel migration 0008). Watching any other table there derives afresh every time.
 */
export const versionedTables: readonly string[] = ['users', 'memberships', 'tenants']

/** Rows each versioned table's version is spread over, so concurrent writers seldom bump the same one. */
export const changeVersionShards = 8

/**
 * Watches a few tables of one store. A value derived from them is kept under a stamp: select {@link version} in
 * the first statement the value is derived from, read {@link writes} just before running it, and make the stamp
 * with {@link stampOf}. Equal stamps later mean no write to the tables in between, by this process or another.
 */
export interface TableWatch {
  /** The database's side of the stamp: changes with every commit of another connection (process). */
  readonly version: RawBuilder<number>
  /** This process's side: how many statements that may write the tables it has run so far. */
  writes(): number
}

/** The stamp of a value derived from a statement that selected `version`, with `writes` read just before it. */
export function stampOf(version: unknown, writes: number): string {
  return `${String(version)}:${writes}`
}

/**
 * Watches `tables` of `db`'s store, or null when the store cannot tell cheaply (then derive afresh every time).
 * On SQLite the database's side is `data_version`, which counts the commits of other connections, and this
 * process counts its own statements that name a watched table. On PostgreSQL it is the sum of the tables'
 * versions, which every commit that wrote one of them (by any instance) has raised; a version is a row written in
 * the writing transaction, so a stamp never runs ahead of the data it stands for.
 */
export function watchTables(db: Db, tables: readonly string[]): TableWatch | null {
  if (isPostgres(db)) {
    if (!tables.every((table) => versionedTables.includes(table))) return null
    return {
      version: sql<number>`(select sum(version) from change_versions where name in (${sql.join(tables)}))`,
      writes: () => 0,
    }
  }
  const { adapter } = db.getExecutor()
  if (!runsNow(adapter)) return null
  return {
    version: sql<number>`(select data_version from pragma_data_version)`,
    writes: adapter.countWrites(tables),
  }
}
