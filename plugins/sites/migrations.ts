// The sites plugin's tables. Owners are referenced by id only: the customers plugin may be swapped.

import type { Migration } from '../../core/index.ts'

/** Row of `sites`. */
export interface SitesTable {
  id: string
  customer_id: string
  handle: string
  name: string
  type: string
  domain: string
  status: string
  created_at: string
  updated_at: string
}

/** The plugin's tables, for `db.withTables<SitesTables>()`. */
export type SitesTables = { sites: SitesTable }

export const sitesMigrations: readonly Migration[] = [
  {
    id: '0001_create_sites',
    async up(db) {
      await db.schema
        .createTable('sites')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('handle', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('sites_customer_idx').on('sites').columns(['customer_id', 'id']).execute()
    },
  },
]
