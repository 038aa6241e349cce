// The brands plugin's tables, and the default brand of a fresh install.

import { type Migration, newId, nowIso } from '../../core/index.ts'

/** Row of `brands`. */
export interface BrandsTable {
  id: string
  name: string
  is_default: number
  created_at: string
  updated_at: string
}

/** The plugin's tables, for `db.withTables<BrandsTables>()`. */
export type BrandsTables = { brands: BrandsTable }

export const brandsMigrations: readonly Migration[] = [
  {
    id: '0001_create_brands',
    async up(db) {
      await db.schema
        .createTable('brands')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      const now = nowIso()
      await db
        .withTables<BrandsTables>()
        .insertInto('brands')
        .values({ id: newId('brd'), name: 'Default', is_default: 1, created_at: now, updated_at: now })
        .execute()
    },
  },
]
