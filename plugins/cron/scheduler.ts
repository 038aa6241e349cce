// The cron scheduler, driven by the panel: every few seconds each panel instance (1) claims the jobs whose minute has
// come (moving `nextRunAt` on with a conditional update, so of several instances sharing a store one wins) and
// records a run for each (or a `skipped` one while the previous run still runs), (2) starts on the site's node the
// runs not started yet (manual ones too), claimed the same way, and (3) reads back the runs still going, recording
// the outcome of those that ended. Nothing here holds a job worker for the length of a run.

import { newId, type PluginContext, type Trx } from '../../core/index.ts'
import { NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import { type SiteRef, siteDirectory } from '../sites/contract.ts'
import type { CronRun } from './contract.ts'
import type { CronJobsTable, CronRunsTable } from './migrations.ts'
import { type CronRequest, type CronTask, cronServiceName, type RunState } from './node/protocol.ts'
import { cronTables, hasRunningRun, pruneRuns, toCronRun } from './repository.ts'
import { nextRunOf } from './schedule.ts'

/** What the scheduler is told by the plugin's options. */
export interface SchedulerOptions {
  /** The scheduler's clock. Default the system's. */
  readonly clock: () => Date
  /** How often it looks (ms); 0: only when told (`tick`). */
  readonly tickIntervalMs: number
  /** Runs kept per job (the newest). */
  readonly keepRuns: number
}

/** A job whose minute passed more than this long ago (the panel was down) is not run late: cron's own rule. */
const lateMs = 60_000
/** A run the node cannot be asked about for this long past its timeout is recorded as lost. */
const lostAfterMs = 10 * 60_000
const everyone = { kind: 'all' } as const

/** The task a run carries out. */
const taskOf = (run: Pick<CronRunsTable, 'kind' | 'command'>): CronTask =>
  run.kind === 'wp-cron' ? { kind: 'wp-cron' } : { kind: 'command', command: run.command }

/** A new run row of `job`. */
export function newRunRow(
  job: CronJobsTable,
  trigger: CronRun['trigger'],
  at: Date,
  skipped?: { code: string; message: string },
): CronRunsTable {
  const now = at.toISOString()
  return {
    id: newId('crun'),
    cronJobId: job.id,
    siteId: job.siteId,
    customerId: job.customerId,
    trigger,
    status: skipped ? 'skipped' : 'running',
    kind: job.kind,
    command: job.command,
    timeoutSeconds: job.timeoutSeconds,
    startedAt: now,
    finishedAt: skipped ? now : null,
    durationMs: skipped ? 0 : null,
    exitCode: null,
    output: '',
    outputTruncated: 0,
    errorCode: skipped?.code ?? null,
    errorMessage: skipped?.message ?? null,
    launched: skipped ? 1 : 0,
    createdAt: now,
    updatedAt: now,
  }
}

/** Records a run of `job` in `trx` and notes it on the job. */
export async function insertRun(trx: Trx, row: CronRunsTable): Promise<void> {
  await cronTables(trx).insertInto('cron_runs').values(row).execute()
  await cronTables(trx)
    .updateTable('cron_jobs')
    .set({ lastRunAt: row.startedAt, lastStatus: row.status })
    .where('id', '=', row.cronJobId)
    .execute()
}

/** The scheduler of one panel instance. */
export function cronScheduler(context: PluginContext, options: SchedulerOptions) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const db = context.db

  async function call(site: SiteRef, request: CronRequest): Promise<unknown> {
    const node = site.nodeId ? await nodes.find(site.nodeId) : null
    if (!node) throw new NodeRefusal('node_unavailable', 'The site has no node.')
    return nodes.call(
      node,
      { siteId: site.id, service: cronServiceName, request },
      AbortSignal.timeout(60_000),
    )
  }

  /** Records how a run ended (once: another instance that read it too changes nothing). */
  async function finish(
    run: CronRunsTable,
    outcome: Pick<
      CronRunsTable,
      'status' | 'finishedAt' | 'durationMs' | 'exitCode' | 'output' | 'errorCode' | 'errorMessage'
    > & {
      outputTruncated: number
    },
  ): Promise<void> {
    await context.transaction(async (trx) => {
      const updated = await cronTables(trx)
        .updateTable('cron_runs')
        .set({ ...outcome, launched: 1, updatedAt: new Date().toISOString() })
        .where('id', '=', run.id)
        .where('status', '=', 'running')
        .executeTakeFirst()
      if (Number(updated.numUpdatedRows) !== 1) return
      await cronTables(trx)
        .updateTable('cron_jobs')
        .set({ lastStatus: outcome.status })
        .where('id', '=', run.cronJobId)
        .where('lastRunAt', '=', run.startedAt)
        .execute()
      const row = await cronTables(trx)
        .selectFrom('cron_runs')
        .selectAll()
        .where('id', '=', run.id)
        .executeTakeFirst()
      if (row && (outcome.status === 'failed' || outcome.status === 'timed_out'))
        await context.emit(trx, { kind: 'cron_run.failed', customerId: run.customerId, data: toCronRun(row) })
      await pruneRuns(trx, run.cronJobId, options.keepRuns)
    })
  }

  const failure = (code: string, message: string) => ({
    status: 'failed',
    finishedAt: new Date().toISOString(),
    durationMs: null,
    exitCode: null,
    output: '',
    outputTruncated: 0,
    errorCode: code,
    errorMessage: message,
  })

  /**
   * Node calls under way, by run: each runs beside the looks rather than in them, so a node that is slow to answer
   * (an agent away) holds up neither the claims of the next minute nor the other sites' runs, and a run is asked
   * about once at a time.
   */
  const inFlight = new Map<string, Promise<void>>()
  function aside(runId: string, work: () => Promise<void>): void {
    if (inFlight.has(runId)) return
    const done = work()
      .catch((error) => context.log.warn({ err: error, runId }, 'cron run could not be started or read'))
      .finally(() => inFlight.delete(runId))
    inFlight.set(runId, done)
  }

  /** (1) Claims the jobs due at `now` and records their runs. */
  async function claimDue(now: Date): Promise<void> {
    const due = await cronTables(db)
      .selectFrom('cron_jobs')
      .selectAll()
      .where('enabled', '=', 1)
      .where('nextRunAt', '<=', now.toISOString())
      .orderBy('nextRunAt')
      .limit(500)
      .execute()
    for (const job of due) {
      await context.transaction(async (trx) => {
        const claimed = await cronTables(trx)
          .updateTable('cron_jobs')
          .set({ nextRunAt: nextRunOf(job.schedule, now)?.toISOString() ?? null })
          .where('id', '=', job.id)
          .where('nextRunAt', '=', job.nextRunAt)
          .where('enabled', '=', 1)
          .executeTakeFirst()
        if (Number(claimed.numUpdatedRows) !== 1) return
        // A minute missed while no panel ran is not run late; a suspended site's jobs do not run at all.
        if (now.getTime() - Date.parse(job.nextRunAt ?? '') > lateMs) return
        const site = await sites.find(trx, everyone, job.siteId)
        if (site?.status !== 'active') return
        if (await hasRunningRun(trx, job.id)) {
          await insertRun(
            trx,
            newRunRow(job, 'scheduled', now, {
              code: 'previous_run_running',
              message: 'The job’s previous run still ran when this one was due.',
            }),
          )
          await pruneRuns(trx, job.id, options.keepRuns)
          return
        }
        await insertRun(trx, newRunRow(job, 'scheduled', now))
      })
    }
  }

  /** (2) Starts on their nodes the runs recorded but not started yet. */
  async function launch(): Promise<void> {
    const pending = await cronTables(db)
      .selectFrom('cron_runs')
      .selectAll()
      .where('status', '=', 'running')
      .where('launched', '=', 0)
      .execute()
    for (const run of pending)
      aside(run.id, async () => {
        const claimed = await cronTables(db)
          .updateTable('cron_runs')
          .set({ launched: 1 })
          .where('id', '=', run.id)
          .where('launched', '=', 0)
          .executeTakeFirst()
        if (Number(claimed.numUpdatedRows) !== 1) return
        const site = await sites.find(db, everyone, run.siteId)
        if (site?.status !== 'active') {
          await finish(run, failure('site_suspended', 'The site is not active: its jobs do not run.'))
          return
        }
        try {
          await call(site, {
            op: 'run.start',
            runId: run.id,
            task: taskOf(run),
            timeoutSeconds: run.timeoutSeconds,
          })
        } catch (error) {
          const code = error instanceof NodeRefusal ? error.code : 'node_unavailable'
          const message =
            error instanceof NodeRefusal
              ? error.message
              : 'The site’s node could not be reached to start the run.'
          await finish(run, failure(code, message))
        }
      })
  }

  /** (3) Reads back the runs going on nodes; records those that ended. */
  async function collect(now: Date): Promise<void> {
    const going = await cronTables(db)
      .selectFrom('cron_runs')
      .selectAll()
      .where('status', '=', 'running')
      .where('launched', '=', 1)
      .execute()
    for (const run of going)
      aside(run.id, async () => {
        const site = await sites.find(db, everyone, run.siteId)
        let state: RunState
        try {
          if (!site) throw new NodeRefusal('cron_run_not_found', 'The site is gone.')
          state = (await call(site, { op: 'run.read', runId: run.id })) as RunState
        } catch (error) {
          const overdue = now.getTime() - Date.parse(run.startedAt) > run.timeoutSeconds * 1000 + lostAfterMs
          if ((error instanceof NodeRefusal && error.code === 'cron_run_not_found') || overdue)
            await finish(
              run,
              failure('run_lost', 'The node no longer knows the run (it restarted, or the site went).'),
            )
          return
        }
        if (state.state !== 'finished') return
        await finish(run, {
          status: state.timedOut ? 'timed_out' : state.exitCode === 0 ? 'succeeded' : 'failed',
          finishedAt: state.finishedAt,
          durationMs: state.durationMs,
          exitCode: state.exitCode,
          output: state.output,
          outputTruncated: state.outputTruncated ? 1 : 0,
          errorCode: null,
          errorMessage: null,
        })
        if (site) await call(site, { op: 'run.forget', runId: run.id }).catch(() => {})
      })
  }

  let busy: Promise<void> | null = null
  let again = false
  /** One look: claims, starts and reads back (a look asked for during one runs once it ends). */
  function tick(): Promise<void> {
    if (busy) {
      again = true
      return busy
    }
    busy = (async () => {
      try {
        do {
          again = false
          const now = options.clock()
          await claimDue(now)
          await launch()
          await collect(now)
        } while (again)
      } catch (error) {
        context.log.warn({ err: error }, 'cron scheduler look failed')
      } finally {
        busy = null
      }
    })()
    return busy
  }

  return {
    tick,
    /** Looks every `tickIntervalMs`; answers how to stop. */
    start(): () => Promise<void> {
      if (options.tickIntervalMs <= 0) return async () => {}
      const timer = setInterval(() => void tick(), options.tickIntervalMs)
      timer.unref?.()
      return async () => {
        clearInterval(timer)
        await busy
        // Calls under way end with their answer or their timeout; a stopping panel waits a few seconds at most.
        await Promise.race([Promise.all(inFlight.values()), Bun.sleep(5000)])
      }
    },
    /** Kills a run still going on its node (its job or site deleted); never throws. */
    async stop(run: Pick<CronRunsTable, 'id' | 'siteId'>): Promise<void> {
      const site = await sites.find(db, everyone, run.siteId).catch(() => null)
      if (site) await call(site, { op: 'run.forget', runId: run.id }).catch(() => {})
    },
    /** Turns WP-Cron off or on in the site's wp-config.php. */
    setWpCron: (site: SiteRef, disabled: boolean) => call(site, { op: 'wp-cron.set', disabled }),
  }
}

export type CronScheduler = ReturnType<typeof cronScheduler>
