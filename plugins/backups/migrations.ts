// The backups plugin's tables: targets (their secrets sealed), each site's repository on a target (its restic
// password sealed), backups, staff's policies for single sites, and download links.

import type { Migration } from '../../core/index.ts'

/** A place repositories live. */
export interface BackupTargetsTable {
  id: string
  name: string
  kind: string
  /** JSON: where it is, without secrets (host, port, username, path, known hosts; url; endpoint, bucket, prefix). */
  location_json: string
  /** Sealed JSON: what nodes write with (a private key, a password, a secret key). */
  push_secrets_sealed: string | null
  /** Sealed JSON: what the panel prunes with, when it differs from what nodes hold; null: the same. */
  prune_secrets_sealed: string | null
  /** 1 for the one target sites without their own back up to. */
  is_default: number
  created_at: string
  updated_at: string
}

/** A site's restic repository on a target. */
export interface BackupRepositoriesTable {
  site_id: string
  target_id: string
  customer_id: string
  /** Sealed: the repository's restic password. */
  password_sealed: string
  /** Bytes the repository takes on its target, as its last backup or prune read them. */
  stored_bytes: number
  created_at: string
}

/** A backup of a site. */
export interface BackupsTable {
  id: string
  site_id: string
  customer_id: string
  target_id: string
  /** The node that took it (whose repository a `local` target's backup is in). */
  node_id: string | null
  status: string
  reason: string
  verified: number
  size_bytes: number | null
  stored_bytes: number | null
  /** JSON BackupContents, once completed. */
  contents_json: string | null
  /** JSON of the checks' figures, once completed. */
  checks_json: string | null
  /** restic's snapshot id. */
  snapshot_id: string | null
  job_id: string | null
  error_code: string | null
  error_message: string | null
  /** For a pre-restore backup: the restore's job. */
  restore_job_id: string | null
  created_at: string
  finished_at: string | null
  /** Set once retention removed its snapshot: no longer listed. */
  forgotten_at: string | null
}

/** Staff's policy for one site, over its plan's; a null member takes the plan's. */
export interface BackupPoliciesTable {
  site_id: string
  schedule: string | null
  keep_daily: number | null
  keep_weekly: number | null
  keep_monthly: number | null
  /** The target the site backs up to; null: the default target. */
  target_id: string | null
  updated_at: string
}

/** A link that downloads a backup as an archive, once, until it expires. */
export interface BackupDownloadsTable {
  /** SHA-256 of the link's token, hex. */
  token_hash: string
  backup_id: string
  site_id: string
  customer_id: string
  created_at: string
  expires_at: string
  used_at: string | null
}

export type BackupTables = {
  backup_targets: BackupTargetsTable
  backup_repositories: BackupRepositoriesTable
  backups: BackupsTable
  backup_policies: BackupPoliciesTable
  backup_downloads: BackupDownloadsTable
}

export const backupMigrations: Migration[] = [
  {
    id: '0001_backups',
    async up(db) {
      await db.schema
        .createTable('backup_targets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('location_json', 'text', (c) => c.notNull())
        .addColumn('push_secrets_sealed', 'text')
        .addColumn('prune_secrets_sealed', 'text')
        .addColumn('is_default', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('backup_targets_name')
        .on('backup_targets')
        .column('name')
        .unique()
        .execute()
      await db.schema
        .createTable('backup_repositories')
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('password_sealed', 'text', (c) => c.notNull())
        .addColumn('stored_bytes', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('backup_repositories_pk', ['site_id', 'target_id'])
        .execute()
      await db.schema
        .createTable('backups')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('target_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('verified', 'integer', (c) => c.notNull())
        .addColumn('size_bytes', 'bigint')
        .addColumn('stored_bytes', 'bigint')
        .addColumn('contents_json', 'text')
        .addColumn('checks_json', 'text')
        .addColumn('snapshot_id', 'text')
        .addColumn('job_id', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('restore_job_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('forgotten_at', 'text')
        .execute()
      await db.schema.createIndex('backups_site').on('backups').columns(['site_id', 'id']).execute()
      await db.schema.createIndex('backups_customer').on('backups').columns(['customer_id', 'id']).execute()
      await db.schema
        .createTable('backup_policies')
        .addColumn('site_id', 'text', (c) => c.primaryKey())
        .addColumn('schedule', 'text')
        .addColumn('keep_daily', 'integer')
        .addColumn('keep_weekly', 'integer')
        .addColumn('keep_monthly', 'integer')
        .addColumn('target_id', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('backup_downloads')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('backup_id', 'text', (c) => c.notNull())
        .addColumn('site_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute()
    },
  },
]
