// Reads and writes of the backups plugin's rows for sites' backups and repositories, and a row as the API shows it.

import type { Db } from '../../core/index.ts'
import type { Backup, BackupContents } from './contract.ts'
import type { BackupRepositoriesTable, BackupsTable, BackupTables, BackupTargetsTable } from './migrations.ts'

/** The plugin's tables through `db`. */
export const backupTables = (db: Db) => db.withTables<BackupTables>()

/** A backup row as the API shows it. */
export function toBackup(row: BackupsTable): Backup {
  return {
    id: row.id,
    siteId: row.site_id,
    customerId: row.customer_id,
    targetId: row.target_id,
    status: row.status as Backup['status'],
    reason: row.reason as Backup['reason'],
    verified: row.verified === 1,
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    storedBytes: row.stored_bytes === null ? null : Number(row.stored_bytes),
    contents: row.contents_json === null ? null : (JSON.parse(row.contents_json) as BackupContents),
    jobId: row.job_id,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  }
}

/** A site's backups still listed (not forgotten by retention), newest first when paged by id descending. */
export const listedBackups = (db: Db, siteId: string) =>
  backupTables(db)
    .selectFrom('backups')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('forgotten_at', 'is', null)

/** One listed backup of a site, or undefined. */
export const findBackup = (db: Db, siteId: string, backupId: string) =>
  listedBackups(db, siteId).where('id', '=', backupId).executeTakeFirst()

/** A backup by id alone (jobs), forgotten or not. */
export const backupById = (db: Db, backupId: string) =>
  backupTables(db).selectFrom('backups').selectAll().where('id', '=', backupId).executeTakeFirst()

/** Writes a new backup row. */
export const insertBackup = (db: Db, row: BackupsTable) =>
  backupTables(db).insertInto('backups').values(row).execute()

/** Changes a backup row. */
export const updateBackup = (db: Db, id: string, changes: Partial<BackupsTable>) =>
  backupTables(db).updateTable('backups').set(changes).where('id', '=', id).execute()

/** The site's running backup, if one runs. */
export const runningBackupOf = (db: Db, siteId: string) =>
  backupTables(db)
    .selectFrom('backups')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('status', '=', 'running')
    .executeTakeFirst()

/** A target by id. */
export const targetById = (db: Db, id: string) =>
  backupTables(db).selectFrom('backup_targets').selectAll().where('id', '=', id).executeTakeFirst()

/**
 * The target a site backs up to: the one staff chose for it (`backup_policies.target_id`), else the default one;
 * undefined when there is neither.
 */
export async function targetOfSite(db: Db, siteId: string): Promise<BackupTargetsTable | undefined> {
  const policy = await backupTables(db)
    .selectFrom('backup_policies')
    .select('target_id')
    .where('site_id', '=', siteId)
    .executeTakeFirst()
  if (policy?.target_id) {
    const chosen = await targetById(db, policy.target_id)
    if (chosen) return chosen
  }
  return backupTables(db)
    .selectFrom('backup_targets')
    .selectAll()
    .where('is_default', '=', 1)
    .executeTakeFirst()
}

/** A site's repository on a target, or undefined before its first backup there. */
export const repositoryOf = (db: Db, siteId: string, targetId: string) =>
  backupTables(db)
    .selectFrom('backup_repositories')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('target_id', '=', targetId)
    .executeTakeFirst()

/** Writes a new repository row. */
export const insertRepository = (db: Db, row: BackupRepositoriesTable) =>
  backupTables(db).insertInto('backup_repositories').values(row).execute()

/** Whole MiB, rounded up: what `backupMB` counts of a repository's bytes. */
export const megabytesOf = (bytes: number) => Math.ceil(bytes / (1024 * 1024))
