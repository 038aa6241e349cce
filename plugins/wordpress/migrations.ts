// The wordpress plugin's table: per WordPress site, its administrator and the database the site runs on.

import type { Migration } from '../../core/index.ts'

/** Row of `wordpress_sites`. */
export interface WordPressSitesTable {
  site_id: string
  admin_user: string
  admin_email: string
  /**
   * The bcrypt hash of the administrator's password, sealed, kept only until the site is installed; the password
   * itself is never kept (the 201 answer showed it once).
   */
  admin_hash_sealed: string | null
  /** The site's database and login (databases plugin), once made. */
  database_id: string | null
  database_user_id: string | null
  created_at: string
}

export type WordPressTables = { wordpress_sites: WordPressSitesTable }

export const wordpressMigrations: readonly Migration[] = [
  {
    id: '0001_create_wordpress_sites',
    async up(db) {
      await db.schema
        .createTable('wordpress_sites')
        .addColumn('site_id', 'text', (c) => c.primaryKey())
        .addColumn('admin_user', 'text', (c) => c.notNull())
        .addColumn('admin_email', 'text', (c) => c.notNull())
        .addColumn('admin_hash_sealed', 'text')
        .addColumn('database_id', 'text')
        .addColumn('database_user_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
]
