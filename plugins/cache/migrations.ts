// The cache plugin's table: each site's page cache settings (a site without a row has the defaults: off).

import type { Migration } from '../../core/index.ts'

/** A row of `site_caches`: columns named as the API's fields; booleans 0/1, lists as JSON text. */
export interface SiteCachesTable {
  siteId: string
  customerId: string
  enabled: number
  ttlSeconds: number
  /** JSON: `["my_session", "cart_*"]`. */
  bypassCookies: string
  /** JSON: `["/cart/"]`. */
  excludedPaths: string
  /** The `site.update` job that carries the last change to the node, or null. */
  jobId: string | null
  createdAt: string
  updatedAt: string
}

export const cacheMigrations: Migration[] = [
  {
    id: '0001_site_caches',
    async up(db) {
      await db.schema
        .createTable('site_caches')
        .addColumn('siteId', 'text', (c) => c.primaryKey())
        .addColumn('customerId', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('ttlSeconds', 'integer', (c) => c.notNull())
        .addColumn('bypassCookies', 'text', (c) => c.notNull())
        .addColumn('excludedPaths', 'text', (c) => c.notNull())
        .addColumn('jobId', 'text')
        .addColumn('createdAt', 'text', (c) => c.notNull())
        .addColumn('updatedAt', 'text', (c) => c.notNull())
        .execute()
    },
  },
]
