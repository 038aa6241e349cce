// The `backup.take` job: takes one backup of a site (take-backup.ts) with its progress in the job. Run once: a run
// the panel lost (a crash, a restart) is not started again on its own, since the node may still be running it
// against the same repository; its backup fails with `backup_interrupted` and the next one (asked for, or the
// schedule's) starts afresh. Deduplication makes that one cheap.

import { type JobDefinition, JobFailure, type PluginContext } from '../../core/index.ts'
import { failBackup } from './backup-outcomes.ts'
import { type TakeInput, takeJobKind } from './backup-requests.ts'
import type { VerifyPlan } from './node/protocol.ts'
import { backupById, toBackup } from './repository.ts'
import { backupTaker } from './take-backup.ts'

/** The lane backups and restores run in, apart from the panel's other jobs. */
export const backupsLane = 'backups'

/** The job definition. */
export function takeJob(context: PluginContext, laneSize: number, verify: VerifyPlan): JobDefinition {
  const take = backupTaker(context, verify)
  return {
    kind: takeJobKind,
    description:
      'Takes a backup of a site on its node (files, a consistent dump of each database, the site’s record) into the site’s restic repository, then checks it (restic’s check on a sample of the data, a test restore of every dump into a scratch database with its tables counted, sampled files compared by checksum). Its result is the backup; a backup that fails any step is `failed` with the step’s code. A run interrupted by a panel restart fails with `backup_interrupted` rather than starting again.',
    cancellable: true,
    maxAttempts: 1,
    lane: { name: backupsLane, concurrency: laneSize },
    timeoutMs: 6 * 60 * 60_000,
    async run(job) {
      const { backupId } = job.input as unknown as TakeInput
      const row = await backupById(context.db, backupId)
      // Ended already (cancelled before it started): nothing to take.
      if (row?.status !== 'running') return row ? { backup: toBackup(row) } : undefined
      if (job.attempt > 1)
        throw new JobFailure(
          'The backup’s run was interrupted (the panel stopped); it is not started again on its own.',
          'backup_interrupted',
        )
      const completed = await take(job, row)
      return { backup: toBackup(completed) }
    },
    // Whatever ended the job before the backup was recorded (a cancel, a timeout, an unreachable node, a crash): the
    // backup fails with the job's code.
    async onGivenUp(trx, job, _outcome, error) {
      const { backupId } = job.input as unknown as TakeInput
      await failBackup(trx, { emit: job.emit, audit: job.audit, usage: context.usage }, backupId, error)
    },
  }
}
