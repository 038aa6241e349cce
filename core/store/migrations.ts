// Applies each owner's migrations in order at start, once each, recording them in `plinth_migrations`.

import { type Kysely, sql } from 'kysely'
import type { UsageCounters } from '../usage/usage-counters.ts'
import { isPostgres } from './engine.ts'
import type { BaseDatabase, Store, Trx } from './store.ts'

/** What a migration may use besides the database. */
export interface MigrationContext {
  /** The owner's usage counters, to count what it moves in. */
  readonly usage: UsageCounters
  /** Whether the store holds a table of this name (an older version's, to move its rows), on any engine. */
  hasTable(name: string): Promise<boolean>
}

/** One schema change of one owner (the kernel or a plugin). Touch only your own tables. */
export interface Migration {
  /** Unique within its owner and ordered: `0001_create_sites`, `0002_add_site_domain_index`. */
  readonly id: string
  /** Applies the change, inside a transaction. Write it with Kysely's schema builder so it runs on every dialect. */
  up(db: Kysely<BaseDatabase>, context: MigrationContext): Promise<void>
}

type MigrationsTable = {
  plinth_migrations: { owner: string; id: string; applied_at: string }
}

/** Migration owners in the order they are applied: the kernel first, then plugins in dependency order. */
export interface MigrationSet {
  readonly owner: string
  readonly migrations: readonly Migration[]
  readonly usage: UsageCounters
}

function checkOrder(set: MigrationSet): void {
  const ids = set.migrations.map((migration) => migration.id)
  const sorted = [...ids].sort()
  if (new Set(ids).size !== ids.length) throw new Error(`Migrations of "${set.owner}" repeat an id`)
  if (ids.join() !== sorted.join()) throw new Error(`Migrations of "${set.owner}" are not listed in id order`)
}

/**
 * Serializes migrations across processes: on PostgreSQL an advisory lock held until the transaction ends (instances
 * starting at once apply each migration once); SQLite's transactions already take the one write lock. The
 * transaction must be `read committed`, so what it reads after the lock includes what the holder before it committed
 * (a serializable one would read the snapshot taken before it waited).
 */
async function lockMigrations(trx: Trx): Promise<void> {
  // Per schema: installations (and test panels) sharing one database migrate at the same time.
  if (isPostgres(trx))
    await sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.plinth_migrations'))`.execute(trx)
}

/**
 * Refuses a store a newer version migrated: a mounted owner with applied migrations this code does not know would
 * run on tables it does not understand.
 */
async function refuseNewerSchema(trx: Trx, sets: readonly MigrationSet[]): Promise<void> {
  const rows = await trx
    .withTables<MigrationsTable>()
    .selectFrom('plinth_migrations')
    .select(['owner', 'id'])
    .execute()
  const known = new Map(
    sets.map((set) => [set.owner, new Set(set.migrations.map((migration) => migration.id))]),
  )
  const unknown = rows.filter((row) => known.get(row.owner)?.has(row.id) === false)
  if (unknown.length === 0) return
  const names = unknown.map((row) => `${row.owner}/${row.id}`).join(', ')
  throw new Error(
    `The store was migrated by a newer version of Plinth (${names} are unknown to this one): run that version, or restore a backup made before the upgrade`,
  )
}

const lockedOnce = { isolation: 'read committed' } as const

/** Applies every pending migration; returns how many were applied. Safe to run from several processes at once. */
export async function migrate(store: Store, sets: readonly MigrationSet[]): Promise<number> {
  for (const set of sets) checkOrder(set)
  await store.transaction(async (trx) => {
    await lockMigrations(trx)
    await trx.schema
      .createTable('plinth_migrations')
      .ifNotExists()
      .addColumn('owner', 'text', (column) => column.notNull())
      .addColumn('id', 'text', (column) => column.notNull())
      .addColumn('applied_at', 'text', (column) => column.notNull())
      .addPrimaryKeyConstraint('plinth_migrations_pk', ['owner', 'id'])
      .execute()
    await refuseNewerSchema(trx, sets)
  }, lockedOnce)
  let applied = 0
  for (const set of sets) {
    for (const migration of set.migrations) {
      const done = await store.transaction(async (trx) => {
        await lockMigrations(trx)
        const tx = trx.withTables<MigrationsTable>()
        const existing = await tx
          .selectFrom('plinth_migrations')
          .select('id')
          .where('owner', '=', set.owner)
          .where('id', '=', migration.id)
          .executeTakeFirst()
        if (existing) return false
        await migration.up(trx, {
          usage: set.usage,
          hasTable: async (name) => (await store.tables(trx)).includes(name),
        })
        await tx
          .insertInto('plinth_migrations')
          .values({ owner: set.owner, id: migration.id, applied_at: new Date().toISOString() })
          .execute()
        return true
      }, lockedOnce)
      if (done) applied++
    }
  }
  return applied
}

/** Whether every migration of `sets` is recorded as applied (what `/readyz` asks). */
export async function migrationsApplied(store: Store, sets: readonly MigrationSet[]): Promise<boolean> {
  const db = store.db.withTables<MigrationsTable>()
  const rows = await db
    .selectFrom('plinth_migrations')
    .select(['owner', 'id'])
    .execute()
    .catch(() => [])
  const recorded = new Set(rows.map((row) => `${row.owner}/${row.id}`))
  return sets.every((set) =>
    set.migrations.every((migration) => recorded.has(`${set.owner}/${migration.id}`)),
  )
}

/** Raw SQL for the rare statement the schema builder cannot say. */
export { sql }
