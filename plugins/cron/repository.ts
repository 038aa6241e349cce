// The only file that knows the cron plugin's columns: its tables as views reach them, and rows made items.

import { type Db, visibleTable } from '../../core/index.ts'
import type { CronJob, CronRun } from './contract.ts'
import type { CronJobsTable, CronRunsTable, CronTables } from './migrations.ts'

export const cronTables = (db: Db) => db.withTables<CronTables>()
/** Cron jobs as callers' views reach them: the jobs of the customers in the view. */
export const cronJobs = visibleTable(cronTables, 'cron_jobs', { customerColumn: 'customerId' })
/** Runs as callers' views reach them. */
export const cronRuns = visibleTable(cronTables, 'cron_runs', { customerColumn: 'customerId' })

export const toCronJob = ({ enabled, ...row }: CronJobsTable): CronJob => ({
  ...row,
  kind: row.kind as CronJob['kind'],
  lastStatus: row.lastStatus as CronJob['lastStatus'],
  enabled: enabled === 1,
})

export const toCronRun = (row: CronRunsTable): CronRun => ({
  id: row.id,
  cronJobId: row.cronJobId,
  siteId: row.siteId,
  customerId: row.customerId,
  trigger: row.trigger as CronRun['trigger'],
  status: row.status as CronRun['status'],
  command: row.command,
  startedAt: row.startedAt,
  finishedAt: row.finishedAt,
  durationMs: row.durationMs,
  exitCode: row.exitCode,
  output: row.output,
  outputTruncated: row.outputTruncated === 1,
  error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** Whether the job has a run that has not ended. */
export async function hasRunningRun(db: Db, cronJobId: string): Promise<boolean> {
  const row = await cronTables(db)
    .selectFrom('cron_runs')
    .select('id')
    .where('cronJobId', '=', cronJobId)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return row !== undefined
}

/** Keeps the job's last `keep` runs that ended (running ones are never dropped). */
export async function pruneRuns(db: Db, cronJobId: string, keep: number): Promise<void> {
  const kept = await cronTables(db)
    .selectFrom('cron_runs')
    .select('id')
    .where('cronJobId', '=', cronJobId)
    .where('status', '!=', 'running')
    .orderBy('id', 'desc')
    .limit(keep)
    .execute()
  const oldest = kept.at(-1)
  if (kept.length < keep || !oldest) return
  await cronTables(db)
    .deleteFrom('cron_runs')
    .where('cronJobId', '=', cronJobId)
    .where('status', '!=', 'running')
    .where('id', '<', oldest.id)
    .execute()
}
