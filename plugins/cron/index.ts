// The cron plugin: sites' cron jobs (`/sites/{id}/cron-jobs`), run by the panel's scheduler on each site's node as
// the site's user, inside its limits, with a timeout; their runs kept with their output's tail; WordPress's WP-Cron
// as a real cron job. docs/cron.md.

import { definePlugin, resourceEvents } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { siteDependents } from '../sites/contract.ts'
import { CronJob, CronRun, cronScopes } from './contract.ts'
import { cronMigrations } from './migrations.ts'
import cronNodeModule from './node/index.ts'
import { timeoutMaxSeconds } from './node/protocol.ts'
import { cronProblems } from './problems.ts'
import { cronTables } from './repository.ts'
import { followRestores, wpCronSyncJob } from './restore-wp-cron.ts'
import { cronJobRoutes } from './routes/cron-jobs.ts'
import { type CronScheduler, cronScheduler } from './scheduler.ts'

/** Options of {@link cronPlugin}. */
export interface CronOptions {
  /** Cron jobs a site may have. Default 25. */
  readonly maxJobsPerSite?: number
  /** A run's timeout when the job does not say one, in seconds. Default 300 (5 minutes). */
  readonly defaultTimeoutSeconds?: number
  /** The longest timeout a job may ask for, in seconds. Default 3600 (an hour); at most 86 400. */
  readonly maxTimeoutSeconds?: number
  /** Runs kept per job, the newest. Default 50. */
  readonly keepRuns?: number
  /** How often the scheduler looks, in ms: runs start within this of their minute. Default 5000; 0 turns it off. */
  readonly tickIntervalMs?: number
  /** The scheduler's clock (tests drive it). Default the system's. */
  readonly clock?: () => Date
}

/** Sites' cron jobs (`cron:read`, `cron:manage`). */
export const cronPlugin = (options: CronOptions = {}) => {
  const clock = options.clock ?? (() => new Date())
  const resolved = {
    maxJobsPerSite: options.maxJobsPerSite ?? 25,
    defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 300,
    maxTimeoutSeconds: Math.min(options.maxTimeoutSeconds ?? 3600, timeoutMaxSeconds),
    keepRuns: options.keepRuns ?? 50,
    tickIntervalMs: options.tickIntervalMs ?? 5000,
    clock,
  }
  let scheduler: CronScheduler | null = null
  const schedulerOf = () => {
    if (!scheduler) throw new Error('the cron plugin is not set up')
    return scheduler
  }
  return definePlugin({
    name: 'cron',
    version: '0.1.0',
    description: 'Sites’ cron jobs, run on their nodes as the sites’ users, with their runs and output.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console pages, when the installation has a console; WP-Cron kept right after restores, when it has backups.
    enhances: ['console', 'backups'],
    scopes: cronScopes.declared,
    events: [
      ...resourceEvents('cron_job', CronJob, 'A cron job'),
      {
        kind: 'cron_run.failed',
        description:
          'A run of a cron job ended `failed` (a non-zero exit code, or the node could not run it: `error` says why) or `timed_out`.',
        payload: CronRun,
      },
    ],
    problems: cronProblems,
    migrations: cronMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.extensionPoint(nodeModules).add({ module: cronNodeModule })
      scheduler = cronScheduler(context, resolved)
      // A site's jobs and runs go in its deletion job, once its node dropped it (its runs killed with its cgroup).
      context.extensionPoint(siteDependents).add({
        name: 'cron',
        remove: (run, site) =>
          run.transaction(async (trx) => {
            await cronTables(trx).deleteFrom('cron_runs').where('siteId', '=', site.id).execute()
            await cronTables(trx).deleteFrom('cron_jobs').where('siteId', '=', site.id).execute()
          }),
      })
      // A restored wp-config.php gets DISABLE_WP_CRON as the site's jobs say now, not as its backup had it.
      followRestores(context)
      // Whatever of a deleted customer's is left (its sites go through their own jobs) goes with it.
      context.extensionPoint(customerDependents).add({
        name: 'cron',
        remove: (run, customer) =>
          run.transaction(async (trx) => {
            await cronTables(trx).deleteFrom('cron_runs').where('customerId', '=', customer.id).execute()
            await cronTables(trx).deleteFrom('cron_jobs').where('customerId', '=', customer.id).execute()
          }),
      })
    },
    jobs: (context) => [wpCronSyncJob(context, schedulerOf)],
    routes: (context) => cronJobRoutes(context, resolved, schedulerOf),
    capabilities: () => ({
      maxJobsPerSite: resolved.maxJobsPerSite,
      defaultTimeoutSeconds: resolved.defaultTimeoutSeconds,
      maxTimeoutSeconds: resolved.maxTimeoutSeconds,
      keepRuns: resolved.keepRuns,
      timezone: 'UTC',
    }),
    start: () => schedulerOf().start(),
  })
}
