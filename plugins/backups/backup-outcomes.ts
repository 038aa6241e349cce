// How a backup ends, each in one transaction: `completed` (every check passed) with its figures, the repository's
// stored bytes and the customer's `backupMB` usage, and `backup.completed`; or `failed` with a stable code and
// `backup.failed`. A row that ended already is left as it is (a job's end recorded twice changes nothing).

import type { UsageCounters } from '../../core/index.ts'
import { type AuditInput, type EventInput, nowIso, type Trx } from '../../core/index.ts'
import type { BackupContents, RunOutcome } from './contract.ts'
import type { BackupsTable } from './migrations.ts'
import { backupById, backupTables, megabytesOf, toBackup, updateBackup } from './repository.ts'

/** What records a backup's end: the job's event outbox and audit, and the plugin's usage counters. */
export interface OutcomeWriters {
  emit(trx: Trx, event: EventInput): Promise<void>
  audit(trx: Trx, entry: AuditInput): Promise<void>
  readonly usage: UsageCounters
}

/** A backup run's successful outcome. */
export type TakenBackup = Extract<RunOutcome, { ok: true; task: 'backup' }>

/** Names and engines of the databases a backup dumped, by id, as the panel knew them when it took it. */
export type DumpedNames = ReadonlyMap<
  string,
  { readonly name: string; readonly engine: 'mariadb' | 'postgresql' }
>

/** Marks the backup `completed` and verified with what the node reported; answers the row as it now is. */
export async function completeBackup(
  trx: Trx,
  writers: OutcomeWriters,
  backupId: string,
  taken: TakenBackup,
  names: DumpedNames,
): Promise<BackupsTable | null> {
  const row = await backupById(trx, backupId)
  if (row?.status !== 'running') return null
  const contents: BackupContents = {
    files: taken.files,
    databases: taken.databases.map((dump) => ({
      databaseId: dump.databaseId,
      name: names.get(dump.databaseId)?.name ?? dump.databaseId,
      engine: names.get(dump.databaseId)?.engine ?? 'mariadb',
      bytes: dump.bytes,
      tables: dump.tables,
    })),
    record: true,
  }
  const finished: BackupsTable = {
    ...row,
    status: 'completed',
    verified: 1,
    size_bytes: taken.sizeBytes,
    stored_bytes: taken.storedBytes,
    contents_json: JSON.stringify(contents),
    checks_json: JSON.stringify(taken.checks),
    snapshot_id: taken.snapshotId,
    finished_at: nowIso(),
  }
  await updateBackup(trx, row.id, finished)
  await setRepositoryBytes(trx, writers, row, taken.repositoryBytes)
  await writers.audit(trx, {
    action: 'backup.complete',
    subject: { type: 'backup', id: row.id },
    customerId: row.customer_id,
    details: { siteId: row.site_id, snapshotId: taken.snapshotId, storedBytes: taken.storedBytes },
  })
  await writers.emit(trx, { kind: 'backup.completed', customerId: row.customer_id, data: toBackup(finished) })
  return finished
}

/** Marks the backup `failed` with `code` and `message`, unless it ended already. */
export async function failBackup(
  trx: Trx,
  writers: OutcomeWriters,
  backupId: string,
  error: { readonly code: string; readonly message: string },
): Promise<BackupsTable | null> {
  const row = await backupById(trx, backupId)
  if (row?.status !== 'running') return null
  const failed: BackupsTable = {
    ...row,
    status: 'failed',
    verified: 0,
    error_code: error.code,
    error_message: error.message.slice(0, 2000),
    finished_at: nowIso(),
  }
  await updateBackup(trx, row.id, failed)
  await writers.audit(trx, {
    action: 'backup.fail',
    subject: { type: 'backup', id: row.id },
    customerId: row.customer_id,
    details: { siteId: row.site_id, code: error.code },
  })
  await writers.emit(trx, { kind: 'backup.failed', customerId: row.customer_id, data: toBackup(failed) })
  return failed
}

/**
 * Records the bytes the site's repository on the backup's target now takes, and moves the customer's `backupMB` by
 * the difference in whole MiB.
 */
export async function setRepositoryBytes(
  trx: Trx,
  writers: Pick<OutcomeWriters, 'usage'>,
  where: { readonly site_id: string; readonly target_id: string; readonly customer_id: string },
  bytes: number,
): Promise<void> {
  const repository = await backupTables(trx)
    .selectFrom('backup_repositories')
    .select('stored_bytes')
    .where('site_id', '=', where.site_id)
    .where('target_id', '=', where.target_id)
    .executeTakeFirst()
  if (!repository) return
  const before = megabytesOf(Number(repository.stored_bytes))
  await backupTables(trx)
    .updateTable('backup_repositories')
    .set({ stored_bytes: bytes })
    .where('site_id', '=', where.site_id)
    .where('target_id', '=', where.target_id)
    .execute()
  const delta = megabytesOf(bytes) - before
  if (delta !== 0) await writers.usage.adjust(trx, where.customer_id, 'backupMB', delta)
}
