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
  /** The node the site lives on. */
  node_id: string | null
  /** The latest job working on the site. */
  job_id: string | null
  /** Disk quota in MB; null is unlimited. */
  disk_mb: number | null
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
  {
    id: '0002_site_lifecycle',
    async up(db) {
      await db.schema.alterTable('sites').addColumn('node_id', 'text').execute()
      await db.schema.alterTable('sites').addColumn('job_id', 'text').execute()
      await db.schema.alterTable('sites').addColumn('disk_mb', 'integer').execute()
      await db.schema.createIndex('sites_node_idx').on('sites').columns(['node_id', 'id']).execute()
    },
  },
]
