// The redirects plugin's tables: a site's redirects (one row each, as the API shows them) and its response headers
// (one row per site, the list as JSON).

import { createTableOf, type Migration } from '../../core/index.ts'
import { Redirect } from './contract.ts'

/** A row of `site_headers`. */
export interface SiteHeadersTable {
  siteId: string
  customerId: string
  /** JSON: `[{ name, value }]`. */
  headers: string
  updatedAt: string
}

export const redirectMigrations: Migration[] = [
  {
    id: '0001_redirects',
    async up(db) {
      // `code` is a union of literals, which the schema would keep as text: an integer column.
      await createTableOf(db, 'site_redirects', Redirect, ['code'])
        .addColumn('code', 'integer', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('site_redirects_siteId_id_idx')
        .on('site_redirects')
        .columns(['siteId', 'id'])
        .execute()
      await db.schema
        .createIndex('site_redirects_customerId_idx')
        .on('site_redirects')
        .column('customerId')
        .execute()
      await db.schema
        .createTable('site_headers')
        .addColumn('siteId', 'text', (c) => c.primaryKey())
        .addColumn('customerId', 'text', (c) => c.notNull())
        .addColumn('headers', 'text', (c) => c.notNull())
        .addColumn('updatedAt', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('site_headers_customerId_idx')
        .on('site_headers')
        .column('customerId')
        .execute()
    },
  },
]
