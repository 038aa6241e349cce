// Applies each owner's migrations in order at start, once each, recording them in `plinth_migrations`.

import { type Kysely, sql } from 'kysely'
import type { UsageCounters } from '../usage/usage-counters.ts'
import type { BaseDatabase, Store } from './store.ts'

/** What a migration may use besides the database: the owner's usage counters (to count what it moves in). */
export interface MigrationContext {
  readonly usage: UsageCounters
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
  readonly context: MigrationContext
}

function checkOrder(set: MigrationSet): void {
  const ids = set.migrations.map((migration) => migration.id)
  const sorted = [...ids].sort()
  if (new Set(ids).size !== ids.length) throw new Error(`Migrations of "${set.owner}" repeat an id`)
  if (ids.join() !== sorted.join()) throw new Error(`Migrations of "${set.owner}" are not listed in id order`)
}

/** Applies every pending migration; returns how many were applied. Safe to run from several processes. */
export async function migrate(store: Store, sets: readonly MigrationSet[]): Promise<number> {
  for (const set of sets) checkOrder(set)
  const db = store.db.withTables<MigrationsTable>()
  await db.schema
    .createTable('plinth_migrations')
    .ifNotExists()
    .addColumn('owner', 'text', (column) => column.notNull())
    .addColumn('id', 'text', (column) => column.notNull())
    .addColumn('applied_at', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('plinth_migrations_pk', ['owner', 'id'])
    .execute()
  let applied = 0
  for (const set of sets) {
    for (const migration of set.migrations) {
      const done = await store.transaction(async (trx) => {
        const tx = trx.withTables<MigrationsTable>()
        const existing = await tx
          .selectFrom('plinth_migrations')
          .select('id')
          .where('owner', '=', set.owner)
          .where('id', '=', migration.id)
          .executeTakeFirst()
        if (existing) return false
        await migration.up(trx, set.context)
        await tx
          .insertInto('plinth_migrations')
          .values({ owner: set.owner, id: migration.id, applied_at: new Date().toISOString() })
          .execute()
        return true
      })
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
