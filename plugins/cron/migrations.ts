// The cron plugin's tables: sites' cron jobs, and their runs (the last few of each job).

import type { Migration } from '../../core/index.ts'

/** A row of `cron_jobs`: columns named as the API's fields; `enabled` 0/1. */
export interface CronJobsTable {
  id: string
  siteId: string
  customerId: string
  kind: string
  schedule: string
  command: string
  enabled: number
  timeoutSeconds: number
  /** When the schedule runs it next; the claim several panel instances race for (only one moves it on). */
  nextRunAt: string | null
  lastRunAt: string | null
  lastStatus: string | null
  createdAt: string
  updatedAt: string
}

/** A row of `cron_runs`: the API's fields, and what the scheduler needs to start and read it on the node. */
export interface CronRunsTable {
  id: string
  cronJobId: string
  siteId: string
  customerId: string
  trigger: string
  status: string
  kind: string
  command: string
  timeoutSeconds: number
  startedAt: string
  finishedAt: string | null
  durationMs: number | null
  exitCode: number | null
  output: string
  outputTruncated: number
  errorCode: string | null
  errorMessage: string | null
  /** 0 until an instance claimed starting it on the node; 1 after. */
  launched: number
  createdAt: string
  updatedAt: string
}

export type CronTables = { cron_jobs: CronJobsTable; cron_runs: CronRunsTable }

export const cronMigrations: Migration[] = [
  {
    id: '0001_cron_jobs',
    async up(db) {
      let jobs = db.schema.createTable('cron_jobs').addColumn('id', 'text', (c) => c.primaryKey())
      for (const column of ['siteId', 'customerId', 'kind', 'schedule', 'command', 'createdAt', 'updatedAt'])
        jobs = jobs.addColumn(column, 'text', (c) => c.notNull())
      await jobs
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('timeoutSeconds', 'integer', (c) => c.notNull())
        .addColumn('nextRunAt', 'text')
        .addColumn('lastRunAt', 'text')
        .addColumn('lastStatus', 'text')
        .execute()
      await db.schema.createIndex('cron_jobs_site_idx').on('cron_jobs').columns(['siteId', 'id']).execute()
      await db.schema.createIndex('cron_jobs_next_idx').on('cron_jobs').column('nextRunAt').execute()
      let runs = db.schema.createTable('cron_runs').addColumn('id', 'text', (c) => c.primaryKey())
      for (const column of [
        'cronJobId',
        'siteId',
        'customerId',
        'trigger',
        'status',
        'kind',
        'command',
        'startedAt',
        'output',
        'createdAt',
        'updatedAt',
      ])
        runs = runs.addColumn(column, 'text', (c) => c.notNull())
      await runs
        .addColumn('timeoutSeconds', 'integer', (c) => c.notNull())
        .addColumn('finishedAt', 'text')
        .addColumn('durationMs', 'integer')
        .addColumn('exitCode', 'integer')
        .addColumn('outputTruncated', 'integer', (c) => c.notNull())
        .addColumn('errorCode', 'text')
        .addColumn('errorMessage', 'text')
        .addColumn('launched', 'integer', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('cron_runs_job_idx').on('cron_runs').columns(['cronJobId', 'id']).execute()
      await db.schema.createIndex('cron_runs_status_idx').on('cron_runs').column('status').execute()
    },
  },
]
