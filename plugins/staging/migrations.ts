// The staging plugin's table: each live site's staging copy, and its latest push to live.

import type { Migration } from '../../core/index.ts'

export interface StagingSitesTable {
  /** The staging site: a site of its own. */
  staging_site_id: string
  /** Its live site: one staging copy each. */
  live_site_id: string
  customer_id: string
  status: string
  job_id: string
  error_code: string | null
  error_message: string | null
  /** JSON StagingPush, or null. */
  last_push_json: string | null
  created_at: string
}

export type StagingTables = { staging_sites: StagingSitesTable }

export const stagingMigrations: Migration[] = [
  {
    id: '0001_staging_sites',
    async up(db) {
      await db.schema
        .createTable('staging_sites')
        .addColumn('staging_site_id', 'text', (c) => c.primaryKey())
        .addColumn('live_site_id', 'text', (c) => c.notNull().unique())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('last_push_json', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
]
