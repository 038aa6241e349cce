// A site's cron jobs (`/sites/{id}/cron-jobs`): list, read, create, change, delete, run now; their runs; and the next
// times a schedule fires (the console's preview). docs/cron.md.

import {
  type Db,
  defineRoute,
  FieldErrors,
  fieldProblem,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  recorded,
  resourceRoutes,
  t,
  unchanged,
} from '../../../core/index.ts'
import { NodeRefusal } from '../../nodes/contract.ts'
import { requireRunningSite, runningSiteProblems, type SiteRef, siteDirectory } from '../../sites/contract.ts'
import { CronJob, CronRun, cronScopes } from '../contract.ts'
import type { CronJobsTable } from '../migrations.ts'
import { commandMaxLength, commandProblem } from '../node/protocol.ts'
import { cronProblems as problems } from '../problems.ts'
import { cronJobs, cronRuns, cronTables, hasRunningRun, toCronJob, toCronRun } from '../repository.ts'
import { nextRunOf, nextRuns, parseSchedule, ScheduleError, scheduleMaxLength } from '../schedule.ts'
import { type CronScheduler, insertRun, newRunRow } from '../scheduler.ts'

/** The settings the routes apply (the plugin's options, resolved). */
export interface CronRouteOptions {
  readonly maxJobsPerSite: number
  readonly defaultTimeoutSeconds: number
  readonly maxTimeoutSeconds: number
  readonly clock: () => Date
}

/** What a `wp-cron` job shows as its command: what the node runs. */
export const wpCronCommand = 'php -f wp-cron.php'

const scheduleField = t.String({
  minLength: 1,
  maxLength: scheduleMaxLength,
  description:
    'When it runs, in UTC: `*/5 * * * *`, `30 2 * * mon-fri`, `@hourly`, … (422 `invalid_cron_schedule` with the reason).',
})
const commandField = t.String({
  minLength: 1,
  maxLength: commandMaxLength,
  description:
    'The command line, run with `/bin/sh -c` in the site’s home as the site’s user: one line (422 `invalid_cron_command`).',
})
const timeoutField = (options: CronRouteOptions) =>
  t.Integer({
    minimum: 1,
    maximum: options.maxTimeoutSeconds,
    description: `How long a run may last before it is killed, in seconds: 1 to ${options.maxTimeoutSeconds}. Default ${options.defaultTimeoutSeconds}.`,
  })

/** The schedule and command given, checked; every refusal at its field, in one 422. */
function checkFields(given: { schedule?: string | undefined; command?: string | undefined }): void {
  const refusals = new FieldErrors()
  if (given.schedule !== undefined)
    try {
      parseSchedule(given.schedule)
    } catch (error) {
      if (!(error instanceof ScheduleError)) throw error
      refusals.add(problems.invalid_cron_schedule, 'body.schedule', error.message)
    }
  if (given.command !== undefined) {
    const problem = commandProblem(given.command)
    if (problem) refusals.add(problems.invalid_cron_command, 'body.command', problem)
  }
  if (refusals.hasAny()) throw refusals.toProblem()
}

/** The routes of cron jobs and their runs. */
export function cronJobRoutes(
  context: PluginContext,
  options: CronRouteOptions,
  scheduler: () => CronScheduler,
): RouteDefinition[] {
  const sites = context.use(siteDirectory)

  const nextRun = (row: Pick<CronJobsTable, 'enabled' | 'schedule'>) =>
    row.enabled === 1 ? (nextRunOf(row.schedule, options.clock())?.toISOString() ?? null) : null

  /** Tells the site's node to turn WP-Cron off or on; an unreachable node refuses the change (503). */
  async function wpCron(site: SiteRef, disabled: boolean): Promise<void> {
    try {
      await scheduler().setWpCron(site, disabled)
    } catch (error) {
      if (error instanceof NodeRefusal && error.code === 'wp_config_missing')
        throw fieldProblem(problems.cron_wp_cron_unsupported, 'body.kind', error.message)
      context.log.warn({ err: error, siteId: site.id }, 'WP-Cron could not be changed on the node')
      throw new Problem(problems.cron_node_unreachable)
    }
  }

  /** Refuses another job on the site past its count, or a second WP-Cron job. */
  async function refuseMore(db: Db, siteId: string, kind: string): Promise<void> {
    const existing = await cronTables(db)
      .selectFrom('cron_jobs')
      .select(['id', 'kind'])
      .where('siteId', '=', siteId)
      .execute()
    if (kind === 'wp-cron' && existing.some((job) => job.kind === 'wp-cron'))
      throw new Problem(problems.cron_wp_cron_exists)
    if (existing.length >= options.maxJobsPerSite) throw new Problem(problems.cron_job_limit_reached)
  }

  const NewCronJob = t.Object(
    {
      kind: t.Optional(
        t.Union([t.Literal('command'), t.Literal('wp-cron')], {
          description:
            '`command` (default) or `wp-cron`: WordPress’s `wp-cron.php`, which then no longer runs on page views (`DISABLE_WP_CRON`).',
        }),
      ),
      schedule: scheduleField,
      command: t.Optional(commandField),
      enabled: t.Optional(t.Boolean({ description: 'Default true.' })),
      timeoutSeconds: t.Optional(timeoutField(options)),
    },
    { $id: 'NewCronJob' },
  )
  const CronJobChange = t.Object(
    {
      schedule: t.Optional(scheduleField),
      command: t.Optional(commandField),
      enabled: t.Optional(t.Boolean()),
      timeoutSeconds: t.Optional(timeoutField(options)),
    },
    { $id: 'CronJobChange' },
  )

  const jobs = resourceRoutes({
    item: CronJob,
    name: 'cron_job',
    noun: 'cron job',
    path: '/sites/:id/cron-jobs',
    params: { id: 'site' },
    key: { cronJobId: 'cron' },
    scopes: cronScopes,
    parent: (db, view, params) => sites.find(db, view, params.id),
    table: { rows: cronJobs, toItem: toCronJob, parentColumn: 'siteId', lock: true },
    list: { summary: 'List a site’s cron jobs', description: 'The site’s cron jobs, oldest first.' },
    read: { summary: 'Read a cron job' },
    create: {
      summary: 'Create a cron job for a site',
      description: `Adds a job the panel runs on the site's node, as the site's user and inside its limits, at the minutes its schedule names (UTC). At most ${options.maxJobsPerSite} a site. A \`wp-cron\` job (WordPress sites) sets \`DISABLE_WP_CRON\` in the site's wp-config.php first: a node that does not answer changes nothing (503).`,
      body: NewCronJob,
      problems: [
        problems.invalid_cron_schedule,
        problems.invalid_cron_command,
        problems.cron_command_required,
        problems.cron_wp_cron_unsupported,
        problems.cron_wp_cron_exists,
        problems.cron_job_limit_reached,
        problems.cron_site_unavailable,
        problems.cron_node_unreachable,
      ],
      async prepare({ db, view, params, body }) {
        if (body.kind !== 'wp-cron') return { wpCron: null }
        const site = orNotFound(await sites.find(db, view, params.id))
        if (site.type !== 'wordpress') throw fieldProblem(problems.cron_wp_cron_unsupported, 'body.kind')
        if (body.command !== undefined)
          throw fieldProblem(
            problems.invalid_cron_command,
            'body.command',
            'A `wp-cron` job takes no command.',
          )
        checkFields(body)
        // Refused before the node is told: undoing a refused WP-Cron job would take the line another one needs.
        await refuseMore(db, site.id, 'wp-cron')
        await wpCron(site, true)
        return { wpCron: site }
      },
      async undo(prepared) {
        if (prepared.wpCron)
          await scheduler()
            .setWpCron(prepared.wpCron, false)
            .catch(() => {})
      },
      async handler({ trx, parent: site, body }) {
        if (site.status !== 'active' && site.status !== 'suspended')
          throw new Problem(problems.cron_site_unavailable)
        const kind = body.kind ?? 'command'
        if (kind === 'command' && body.command === undefined)
          throw fieldProblem(problems.cron_command_required, 'body.command')
        checkFields(body)
        await refuseMore(trx, site.id, kind)
        const at = nowIso()
        const enabled = body.enabled === false ? 0 : 1
        const row: CronJobsTable = {
          id: newId('cron'),
          siteId: site.id,
          customerId: site.customerId,
          kind,
          schedule: body.schedule.trim(),
          command: kind === 'wp-cron' ? wpCronCommand : (body.command ?? ''),
          enabled,
          timeoutSeconds: body.timeoutSeconds ?? options.defaultTimeoutSeconds,
          nextRunAt: null,
          lastRunAt: null,
          lastStatus: null,
          createdAt: at,
          updatedAt: at,
        }
        row.nextRunAt = nextRun(row)
        await cronTables(trx).insertInto('cron_jobs').values(row).execute()
        return recorded(toCronJob(row), {
          details: {
            siteId: site.id,
            kind,
            schedule: row.schedule,
            command: row.command,
            enabled: enabled === 1,
          },
        })
      },
    },
    update: {
      summary: 'Change a cron job',
      description:
        'Changes its schedule, command, timeout, or turns it on or off; the next run is computed again from now. A `wp-cron` job’s command is WordPress’s and cannot be changed.',
      body: CronJobChange,
      problems: [problems.invalid_cron_schedule, problems.invalid_cron_command],
      async handler({ trx, row, body }) {
        if (row.kind === 'wp-cron' && body.command !== undefined && body.command !== row.command)
          throw fieldProblem(
            problems.invalid_cron_command,
            'body.command',
            'A `wp-cron` job’s command cannot be changed.',
          )
        checkFields(body)
        const changed: CronJobsTable = {
          ...row,
          schedule: body.schedule?.trim() ?? row.schedule,
          command: body.command ?? row.command,
          enabled: body.enabled === undefined ? row.enabled : body.enabled ? 1 : 0,
          timeoutSeconds: body.timeoutSeconds ?? row.timeoutSeconds,
        }
        const same = (['schedule', 'command', 'enabled', 'timeoutSeconds'] as const).every(
          (field) => changed[field] === row[field],
        )
        if (same) return unchanged(toCronJob(row))
        if (changed.schedule !== row.schedule || changed.enabled !== row.enabled || row.nextRunAt === null)
          changed.nextRunAt = nextRun(changed)
        changed.updatedAt = nowIso()
        await cronTables(trx).updateTable('cron_jobs').set(changed).where('id', '=', row.id).execute()
        const before = toCronJob(row)
        const after = toCronJob(changed)
        const fields = ['schedule', 'command', 'enabled', 'timeoutSeconds'] as const
        const details = Object.fromEntries(
          fields
            .filter((field) => before[field] !== after[field])
            .map((field) => [field, { from: before[field], to: after[field] }]),
        )
        return recorded(after, { details })
      },
    },
    remove: {
      summary: 'Delete a cron job',
      description:
        'Deletes the job and its runs; a run still going is killed. Deleting a `wp-cron` job turns WordPress’s own WP-Cron back on (its wp-config.php line removed) first: a node that does not answer changes nothing (503).',
      problems: [problems.cron_node_unreachable],
      async prepare({ db, view, params }) {
        const job = await cronJobs.find(db, view, params.cronJobId).catch(() => null)
        if (job?.kind !== 'wp-cron' || job.siteId !== params.id) return { wpCron: null }
        const site = await sites.find(db, view, params.id)
        if (!site || site.status === 'deleting') return { wpCron: null }
        await wpCron(site, false)
        return { wpCron: site }
      },
      async undo(prepared) {
        if (prepared.wpCron)
          await scheduler()
            .setWpCron(prepared.wpCron, true)
            .catch(() => {})
      },
      async handler({ trx, row }) {
        const going = await cronTables(trx)
          .selectFrom('cron_runs')
          .select(['id', 'siteId'])
          .where('cronJobId', '=', row.id)
          .where('status', '=', 'running')
          .execute()
        await cronTables(trx).deleteFrom('cron_runs').where('cronJobId', '=', row.id).execute()
        await cronTables(trx).deleteFrom('cron_jobs').where('id', '=', row.id).execute()
        // Killed after the answer: a run of a deleted job has nobody to report to.
        for (const run of going) setTimeout(() => void scheduler().stop(run), 0)
        return toCronJob(row)
      },
    },
  })

  /** The job the path names, under its site in the caller's view, or null. */
  const jobOf = async (
    db: Parameters<typeof cronJobs.find>[0],
    view: Parameters<typeof cronJobs.find>[1],
    siteId: string,
    id: string,
  ) => {
    const site = await sites.find(db, view, siteId)
    if (!site) return null
    const job = await cronJobs.find(db, view, id).catch(() => null)
    return job && job.siteId === site.id ? job : null
  }

  const runs = resourceRoutes({
    item: CronRun,
    name: 'cron_run',
    noun: 'cron run',
    path: '/sites/:id/cron-jobs/:cronJobId/runs',
    params: { id: 'site', cronJobId: 'cron' },
    key: { cronRunId: 'crun' },
    scopes: cronScopes,
    parent: (db, view, params) => jobOf(db, view, params.id, params.cronJobId),
    table: { rows: cronRuns, toItem: toCronRun, parentColumn: 'cronJobId' },
    list: {
      summary: 'List a cron job’s runs',
      description:
        'Its runs, newest first: when each started and ended, how long it took, its exit code and status, what triggered it and the tail of its output. The newest runs are kept (the plugin’s `keepRuns`, default 50).',
      order: 'desc',
      query: t.Object({
        status: t.Optional(
          t.Union(
            ['running', 'succeeded', 'failed', 'timed_out', 'skipped'].map((status) => t.Literal(status)),
            { description: 'Only runs of this status.' },
          ),
        ),
      }),
      filters: { status: 'status' },
    },
    read: { summary: 'Read a cron run' },
  })

  const runNow = defineRoute({
    method: 'POST',
    path: '/sites/:id/cron-jobs/:cronJobId/run',
    operationId: 'runCronJob',
    summary: 'Run a cron job now',
    description:
      'Starts a `manual` run of the job at once (within seconds), enabled or not, as its schedule would: answered 202 with the run, whose outcome its runs list shows. A job runs once at a time (409 `cron_job_running`); a suspended site runs nothing (409 `site_suspended`).',
    scope: cronScopes.manage,
    params: { id: 'site', cronJobId: 'cron' },
    change: { action: 'cron_job.run' },
    responses: {
      202: { description: 'The run, started.', schema: CronRun, headers: { Location: 'URL of the run.' } },
    },
    problems: [...runningSiteProblems, problems.cron_job_running],
    async handler({ trx, view, params }) {
      const site = orNotFound(await sites.find(trx, view, params.id))
      const job = orNotFound(await jobOf(trx, view, params.id, params.cronJobId))
      requireRunningSite(site)
      if (await hasRunningRun(trx, job.id)) throw new Problem(problems.cron_job_running)
      const run = newRunRow(job, 'manual', options.clock())
      await insertRun(trx, run)
      // Started by the scheduler's next look; asked for now (it waits for this transaction's rows if it must).
      setTimeout(() => void scheduler().tick(), 50)
      const location = `/sites/${site.id}/cron-jobs/${job.id}/runs/${run.id}`
      return recorded(new Reply(202, toCronRun(run), {}, location), {
        customerId: site.customerId,
        subject: { type: 'cron_job', id: job.id },
        details: { siteId: site.id, runId: run.id },
      })
    },
  })

  const preview = defineRoute({
    method: 'GET',
    path: '/cron-schedules/next-runs',
    operationId: 'previewCronSchedule',
    summary: 'The next times a cron schedule fires',
    description:
      'Checks a schedule as a cron job’s `schedule` is checked and answers the next times it fires (UTC): what a client shows beside the field. 422 `invalid_cron_schedule` at `query.schedule` with the reason.',
    scope: cronScopes.read,
    query: t.Object({
      schedule: t.String({ minLength: 1, maxLength: scheduleMaxLength, description: 'The schedule.' }),
      count: t.Optional(t.Integer({ minimum: 1, maximum: 20, description: 'How many times; default 5.' })),
    }),
    responses: {
      200: t.Object(
        {
          schedule: t.String({ description: 'The schedule as given.' }),
          nextRuns: t.Array(t.String(), { description: 'The next times it fires, UTC, ISO 8601.' }),
        },
        { $id: 'CronSchedulePreview' },
      ),
    },
    problems: [problems.invalid_cron_schedule],
    handler({ query }) {
      try {
        const schedule = parseSchedule(query.schedule)
        const times = nextRuns(schedule, options.clock(), query.count ?? 5)
        return { schedule: query.schedule, nextRuns: times.map((time) => time.toISOString()) }
      } catch (error) {
        if (!(error instanceof ScheduleError)) throw error
        throw fieldProblem(problems.invalid_cron_schedule, 'query.schedule', error.message)
      }
    },
  })

  return [...jobs, ...runs, runNow, preview]
}
