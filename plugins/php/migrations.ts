// The php plugin's table: per site, its document root (a `php` or `static` site's create option) and its own PHP
// version and settings (only those set; the defaults are not stored).

import type { Migration } from '../../core/index.ts'

/** Row of `php_sites`: made when a `php` or `static` site is created, or a site's PHP is first changed. */
export interface PhpSitesTable {
  site_id: string
  customer_id: string
  /** The document root under `htdocs/` (`public`); empty: `htdocs/` itself. */
  root: string
  /** The PHP version chosen (`8.2`); null: the node's default. */
  version: string | null
  /** JSON object of the settings the site set (`{"memory_limit":"256M"}`), by name. */
  settings: string
  updated_at: string
}

export type PhpTables = { php_sites: PhpSitesTable }

export const phpMigrations: readonly Migration[] = [
  {
    id: '0001_create_php_sites',
    async up(db) {
      await db.schema
        .createTable('php_sites')
        .addColumn('site_id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('root', 'text', (c) => c.notNull())
        .addColumn('version', 'text')
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
]
