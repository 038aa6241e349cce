// The brands plugin's tables, and the default brand of a fresh install.

import { type Migration, newId, nowIso } from '../../core/index.ts'
import { defaultTheme } from './contract.ts'

/** Row of `brands`. */
export interface BrandsTable {
  id: string
  name: string
  is_default: number
  /** The logo's `data:` URL, or null. */
  logo: string | null
  /** `#rrggbb`, lower case. */
  primary_color: string
  accent_color: string
  /** JSON array of the brand's host names, in its order: what `brand_hostnames` holds for it. */
  hostnames: string
  created_at: string
  updated_at: string
}

/** Row of `brand_hostnames`: which brand a host name shows. Its key makes a host name one brand's at most. */
export interface BrandHostnamesTable {
  hostname: string
  brand_id: string
}

/** The plugin's tables, for `db.withTables<BrandsTables>()`. */
export type BrandsTables = { brands: BrandsTable; brand_hostnames: BrandHostnamesTable }

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
        .withTables<{
          brands: Pick<BrandsTable, 'id' | 'name' | 'is_default' | 'created_at' | 'updated_at'>
        }>()
        .insertInto('brands')
        .values({ id: newId('brd'), name: 'Default', is_default: 1, created_at: now, updated_at: now })
        .execute()
    },
  },
  {
    id: '0002_add_brand_theme_and_hostnames',
    async up(db) {
      // Existing brands get the default theme and no host names, through the columns' defaults.
      await db.schema.alterTable('brands').addColumn('logo', 'text').execute()
      await db.schema
        .alterTable('brands')
        .addColumn('primary_color', 'text', (c) => c.notNull().defaultTo(defaultTheme.primaryColor))
        .execute()
      await db.schema
        .alterTable('brands')
        .addColumn('accent_color', 'text', (c) => c.notNull().defaultTo(defaultTheme.accentColor))
        .execute()
      await db.schema
        .alterTable('brands')
        .addColumn('hostnames', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute()
      await db.schema
        .createTable('brand_hostnames')
        .addColumn('hostname', 'text', (c) => c.primaryKey())
        .addColumn('brand_id', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('brand_hostnames_brand_idx')
        .on('brand_hostnames')
        .column('brand_id')
        .execute()
    },
  },
]
