// Asks for a backup of a site: in the caller's transaction, the checks (one backup or restore of a site at a time,
// a target, the customer's `backupMB`), the `running` row and the `backup.take` job that takes it. The API's
// `POST /sites/{id}/backups`, the schedule (policies) and restores (their pre-restore backup) all come here.

import {
  type AuditInput,
  type Db,
  type JobRequest,
  jobIsLive,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  type Trx,
} from '../../core/index.ts'
import type { SiteRef } from '../sites/contract.ts'
import type { Backup, backupReasons } from './contract.ts'
import type { BackupsTable } from './migrations.ts'
import { backupsProblems } from './problems.ts'
import { backupTables, insertBackup, targetOfSite, toBackup } from './repository.ts'

/** The job that takes a backup. */
export const takeJobKind = 'backup.take'

/** What the `backup.take` job is given. */
export interface TakeInput {
  readonly backupId: string
}

/** A backup asked for. */
export interface BackupRequest {
  readonly site: SiteRef
  readonly reason: (typeof backupReasons)[number]
  /**
   * For a `pre-restore` backup: the restore's job, which takes the backup itself before it restores (no
   * `backup.take` job is started for it).
   */
  readonly restoreJobId?: string
}

/**
 * Who records the request: a route's `enqueueJob` (the caller is the job's starter) and `null` for `audit` (the
 * route's change is recorded by the kernel); default the plugin context's, on behalf of the installation.
 */
export interface RequestWriters {
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  readonly audit: ((trx: Trx, entry: AuditInput) => Promise<void>) | null
}

/** A backup asked for: its row and the job that takes it. */
export interface RequestedBackup {
  readonly backup: Backup
  readonly jobId: string
}

/**
 * Asks for a backup of `site` in `trx`: refused with 409 `backup_in_progress` while a backup or restore of the site
 * runs, 422 `backup_limit_reached` when the customer's backups already take its whole `backupMB` (a `pre-restore`
 * backup is never refused for it: it protects what a restore replaces).
 * @example const { backup, jobId } = await requestBackup(context, trx, { site, reason: 'scheduled' })
 */
export async function requestBackup(
  context: PluginContext,
  trx: Trx,
  request: BackupRequest,
  writers: RequestWriters = { enqueueJob: context.enqueueJob, audit: context.audit },
): Promise<RequestedBackup> {
  const { site, reason } = request
  const busy = await siteBusyWith(trx, site.id)
  if (busy !== null && busy !== request.restoreJobId)
    throw new Problem(backupsProblems.backup_in_progress, { extensions: { jobId: busy } })
  // Room for at least one more MiB: the size of a backup is known only once taken.
  if (reason !== 'pre-restore')
    await context.quotas.reserve(trx, { customerId: site.customerId, amounts: { backupMB: 1 } })
  const target = await targetOfSite(trx, site.id)
  // The targets keep one default at all times (a fresh installation's is each site's node; it cannot be deleted).
  if (!target) throw new Error('The installation has no default backup target')
  const row: BackupsTable = {
    id: newId('bkp'),
    site_id: site.id,
    customer_id: site.customerId,
    target_id: target.id,
    node_id: site.nodeId,
    status: 'running',
    reason,
    verified: 0,
    size_bytes: null,
    stored_bytes: null,
    contents_json: null,
    checks_json: null,
    snapshot_id: null,
    job_id: null,
    error_code: null,
    error_message: null,
    restore_job_id: request.restoreJobId ?? null,
    created_at: nowIso(),
    finished_at: null,
    forgotten_at: null,
  }
  row.job_id =
    request.restoreJobId ??
    (await writers.enqueueJob(trx, {
      kind: takeJobKind,
      customerId: site.customerId,
      subject: { type: 'site', id: site.id },
      input: { backupId: row.id } satisfies TakeInput,
    }))
  await insertBackup(trx, row)
  await writers.audit?.(trx, {
    action: 'backup.create',
    subject: { type: 'backup', id: row.id },
    customerId: site.customerId,
    details: { siteId: site.id, reason, targetId: target.id, jobId: row.job_id },
  })
  return { backup: toBackup(row), jobId: row.job_id }
}

/**
 * The job of the backup or restore of the site that runs now, or null: a `running` backup's, or the live restore
 * whose pre-restore backup the site has.
 */
export async function siteBusyWith(trx: Db, siteId: string): Promise<string | null> {
  const rows = await backupTables(trx)
    .selectFrom('backups')
    .select(['status', 'job_id', 'restore_job_id'])
    .where('site_id', '=', siteId)
    .where((w) => w.or([w('status', '=', 'running'), w('restore_job_id', 'is not', null)]))
    .orderBy('id', 'desc')
    .limit(5)
    .execute()
  for (const row of rows) {
    if (row.status === 'running' && row.job_id) return row.job_id
    if (row.restore_job_id && (await jobIsLive(trx, row.restore_job_id))) return row.restore_job_id
  }
  return null
}
