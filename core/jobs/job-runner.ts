// The worker pool inside the server process: claims jobs with a lease, runs their handlers, renews the lease while
// they run, and records how each run ended (retry with backoff, fail for good, cancel), with `job.finished` in the
// same transaction as the final state.

import { writeAudit } from '../audit/audit-log.ts'
import { writeEvent } from '../events/outbox.ts'
import { ulid } from '../ids/ids.ts'
import type { Logger } from '../plugin/define-plugin.ts'
import type { EventInput } from '../plugin/route.ts'
import { type Listening, listenWhileRunning } from '../store/listening.ts'
import type { Store, Trx } from '../store/store.ts'
import { claimNextJob, moveToTheirLanes, placeDueJobs } from './job-claim.ts'
import { type JobDefinition, JobFailure, type JobRun, laneOf } from './job-definition.ts'
import { jobOutputWriter } from './job-output.ts'
import {
  findJobRow,
  finishRun,
  type JobOutcome,
  jobCancelsChannel,
  jobsChannel,
  releaseLease,
  renewLease,
  toJob,
} from './job-queue.ts'
import type { JobsTable, JobTables } from './job-tables.ts'

/** How the pool runs. */
export interface JobRunnerOptions {
  /** Jobs run at once. Default 4. */
  readonly concurrency: number
  /** How long a claim lasts without renewal; a dead worker's job is taken over after it. Default 30 s. */
  readonly leaseMs: number
  /**
   * How often idle workers look for work: retries whose time came, leases that ran out. A job enqueued on any
   * instance wakes them at once besides (`store.listen`), so this is the safety net. Default 500 ms.
   */
  readonly pollIntervalMs: number
  /** First retry delay; each further retry doubles it (with jitter), up to `retryMaxMs`. Default 5 s. */
  readonly retryBaseMs: number
  readonly retryMaxMs: number
  /**
   * How long `stop()` waits, once it has asked the running jobs to stop, for their handlers to return before it
   * abandons them (their leases then run out). Default 3 s: a handler that honours its signal returns at once.
   */
  readonly shutdownGraceMs: number
}

export const defaultJobRunnerOptions: JobRunnerOptions = {
  concurrency: 4,
  leaseMs: 30_000,
  pollIntervalMs: 500,
  retryBaseMs: 5_000,
  retryMaxMs: 15 * 60_000,
  shutdownGraceMs: 3_000,
}

/** A job kind as the runner knows it: its definition and the plugin that declared it (and its event kinds). */
export interface RegisteredJob {
  readonly definition: JobDefinition
  readonly plugin: string
  readonly eventKinds: ReadonlySet<string>
}

/** Runs before a job fails for good, unless its kind says otherwise. */
export const defaultMaxAttempts = 5
const defaultTimeoutMs = 10 * 60_000

/** The delay before retry `attempt` (1-based): doubling from `base`, capped, with ±20 % jitter. */
export function retryDelayMs(attempt: number, options: Pick<JobRunnerOptions, 'retryBaseMs' | 'retryMaxMs'>) {
  const plain = Math.min(options.retryBaseMs * 2 ** Math.max(0, attempt - 1), options.retryMaxMs)
  return Math.round(plain * (0.8 + Math.random() * 0.4))
}

/** Builds the view of a job its handler gets (also used for `onGivenUp` outside a run). */
export function jobRunOf(
  row: JobsTable,
  registered: RegisteredJob,
  store: Store,
  extras: {
    signal: AbortSignal
    progress: (percent: number, step: string) => Promise<void>
    output?: JobRun['output']
  },
): JobRun {
  const actor = {
    userId: row.requested_by_user_id,
    tokenId: row.requested_by_token_id,
    requestId: row.request_id,
    sourceAddress: null,
  }
  return {
    id: row.id,
    kind: row.kind,
    customerId: row.customer_id,
    subject: { type: row.subject_type, id: row.subject_id },
    input: JSON.parse(row.input) as Record<string, unknown>,
    attempt: row.attempts,
    signal: extras.signal,
    progress: extras.progress,
    output: extras.output ?? (() => {}),
    transaction: (work) => store.transaction(work),
    audit: (trx, entry) => writeAudit(trx, actor, entry),
    emit: async (trx: Trx, event: EventInput) => {
      if (!registered.eventKinds.has(event.kind))
        throw new Error(`Plugin "${registered.plugin}" emitted undeclared event kind "${event.kind}"`)
      await writeEvent(trx, event)
    },
  }
}

/** Writes `job.finished` for a job that reached a final state, in `trx`. */
export async function emitJobFinished(trx: Trx, row: JobsTable, cancellable: boolean): Promise<void> {
  await writeEvent(trx, { kind: 'job.finished', customerId: row.customer_id, data: toJob(row, cancellable) })
}

/** What a run's error says as the job's `error`: its own stable code when it has one (see `JobDefinition.run`). */
function errorOf(error: unknown): { code: string; message: string } {
  if (!(error instanceof Error)) return { code: 'job_error', message: String(error) }
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code)
    ? { code, message: error.message }
    : { code: 'job_error', message: error.message }
}

/** How a run ended, as the metrics count it: `retried` is a failed run with attempts left. */
export type RunOutcome = 'succeeded' | 'retried' | 'failed' | 'cancelled'

/** What the pool tells the panel: a job reached a final state, a run ended (metrics), and where it logs. */
export interface JobRunnerHooks {
  finished(): void
  ran?(kind: string, outcome: RunOutcome, seconds: number): void
  readonly log: Logger
}

/**
 * The pool. `start()` begins claiming; `stop()` stops claiming, asks the running jobs to stop, and gives their
 * leases back, so another instance (or the next start) resumes them at once: a stop never waits for a job's end.
 */
export function createJobRunner(
  store: Store,
  jobs: ReadonlyMap<string, RegisteredJob>,
  options: JobRunnerOptions,
  hooks: JobRunnerHooks,
) {
  const { log } = hooks
  const owner = `wrk_${ulid()}`
  const running = new Map<
    string,
    {
      controller: AbortController
      done: Promise<void>
      abandon: () => void
      /** Aborts the run as cancelled (its kind is cancellable and a cancel was asked for). */
      cancel: () => void
      lane: string
    }
  >()
  let started = false
  let stopping = false
  /** Set once `stop()` has returned: the store may close, so nothing more is written. */
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  /** The claims under way, which `stop()` waits for: a job claimed as the pool stops is given back, not run. */
  let claiming: Promise<void> | null = null
  let again = false
  let listening: Listening | null = null
  let cancelListening: Listening | null = null
  /** Moving queued jobs to their kinds' lanes as the pool starts, which `stop()` waits for. */
  let moving: Promise<void> | null = null

  /** Aborts the runs of this instance whose cancel was asked for (told on the cancels channel as it commits). */
  async function abortCancelled(): Promise<void> {
    const ids = [...running.keys()]
    if (ids.length === 0) return
    const asked = await store.db
      .withTables<JobTables>()
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', ids)
      .where('cancel_requested', '=', 1)
      .execute()
    for (const { id } of asked) running.get(id)?.cancel()
  }

  /** A lane as this instance runs it: its kinds and its size. */
  interface Pool {
    readonly lane: string
    readonly kinds: string[]
    readonly concurrency: number
  }

  /**
   * The pools: the shared one (`''`: kinds without a lane) and each lane's, with their kinds and sizes. Read at
   * each fill: the registry is filled once plugins are set up, after the pool is made.
   */
  function pools(): Pool[] {
    const byLane = new Map<string, Pool>()
    byLane.set('', { lane: '', kinds: [], concurrency: options.concurrency })
    for (const [kind, registered] of jobs) {
      const name = laneOf(registered.definition)
      let pool = byLane.get(name)
      if (!pool) {
        pool = {
          lane: name,
          kinds: [],
          concurrency: Math.max(1, registered.definition.lane?.concurrency ?? 1),
        }
        byLane.set(name, pool)
      }
      pool.kinds.push(kind)
    }
    return [...byLane.values()]
  }
  const runningIn = (lane: string) => [...running.values()].filter((entry) => entry.lane === lane).length

  async function claim(pool: Pool, urgentOnly: boolean): Promise<JobsTable | null> {
    const now = new Date()
    await placeDueJobs(store, pool.lane, now.toISOString())
    return store.transaction(
      (trx) =>
        claimNextJob(trx, owner, now, new Date(now.getTime() + options.leaseMs), {
          lane: pool.lane,
          kinds: pool.kinds,
          urgentOnly,
        }),
      // The claim locks the row it takes and skips the others' (claimRows): instances claiming at once neither
      // wait for nor fail each other, as they would under serializable isolation.
      { isolation: 'read committed' },
    )
  }

  /** Claims work until the pool is full or nothing is runnable. */
  function fill(): Promise<void> {
    if (claiming) {
      again = true
      return claiming
    }
    claiming = claimWhileRoom().finally(() => {
      claiming = null
    })
    return claiming
  }

  async function claimWhileRoom(): Promise<void> {
    try {
      do {
        again = false
        for (const pool of pools()) {
          // One worker beyond the lane's size is kept for urgent work: a lane full of customer work still starts
          // a suspension at once.
          while (started && !stopping && runningIn(pool.lane) <= pool.concurrency) {
            const row = await claim(pool, runningIn(pool.lane) >= pool.concurrency)
            if (!row) break
            // Claimed as the pool began to stop: handed back untouched, for whoever runs next.
            if (stopping) await giveBack(row, { unrun: true })
            else {
              const registered = jobs.get(row.kind)
              if (registered) run(row, registered)
            }
          }
        }
      } while (again && started && !stopping)
    } catch (error) {
      log.error({ err: error }, 'claiming jobs failed')
    }
  }

  function schedule(): void {
    if (!started || stopping) return
    clearTimeout(timer)
    timer = setTimeout(async () => {
      await fill()
      schedule()
    }, options.pollIntervalMs)
  }

  /** Records how a run ended; answers false when the lease was lost meanwhile (another worker's run counts). */
  async function finish(row: JobsTable, registered: RegisteredJob, outcome: JobOutcome): Promise<boolean> {
    const final = outcome.status !== 'queued'
    const givingUp = outcome.status === 'failed' || outcome.status === 'cancelled'
    const { onGivenUp } = registered.definition
    const recorded = await store.transaction(
      async (trx) => {
        if (!(await finishRun(trx, row.id, owner, outcome, new Date()))) return false
        if (!final) return true
        const finished = await findJobRow(trx, row.id)
        if (!finished) return true
        if (givingUp && onGivenUp) {
          const view = jobRunOf(finished, registered, store, {
            signal: AbortSignal.abort(),
            progress: async () => {},
          })
          await onGivenUp(trx, view, outcome.status, outcome.error)
        }
        await emitJobFinished(trx, finished, registered.definition.cancellable === true)
        return true
      },
      // The kernel's own writes here hold under any isolation: the update is conditional on this worker's lease.
      // Serializable isolation would only fail the finishes of jobs ending at once against each other (recent
      // jobs share index pages), again and again under load, leaving them to their leases; a plugin's onGivenUp
      // keeps the serializable transaction every plugin's code runs in.
      givingUp && onGivenUp ? {} : { isolation: 'read committed' },
    )
    if (final && recorded) hooks.finished()
    return recorded
  }

  /** Counts and logs a recorded run: failures with the job's ids and why, never its input. */
  function report(row: JobsTable, outcome: JobOutcome, seconds: number, error: unknown): void {
    const run: RunOutcome =
      outcome.status === 'queued' ? 'retried' : (outcome.status as Exclude<RunOutcome, 'retried'>)
    hooks.ran?.(row.kind, run, seconds)
    if (outcome.status === 'succeeded') return
    const fields = {
      jobId: row.id,
      kind: row.kind,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      customerId: row.customer_id,
      subjectId: row.subject_id,
      requestId: row.request_id,
      code: outcome.error.code,
      error: outcome.error.message,
      // A plugin's own refusal (JobFailure) says all there is; anything else is a fault, logged with its stack.
      ...(error instanceof JobFailure || error === undefined ? {} : { err: error }),
    }
    if (run === 'cancelled') log.info(fields, 'job cancelled')
    else if (run === 'failed') log.error(fields, 'job failed')
    else if (outcome.status === 'queued')
      log.warn({ ...fields, retryAt: outcome.runAfter.toISOString() }, 'job run failed; retrying')
  }

  function run(row: JobsTable, registered: RegisteredJob): void {
    const { definition } = registered
    const controller = new AbortController()
    let cancelled = false
    let leaseLost = false
    const keep = async (progress?: { percent: number; step: string }) => {
      const leaseUntil = new Date(Date.now() + options.leaseMs)
      const state = await renewLease(store.db, row.id, owner, leaseUntil, progress)
      if (!state.held) {
        leaseLost = true
        controller.abort(new Error('The job’s lease was lost'))
      } else if (state.cancelRequested && definition.cancellable) {
        cancelled = true
        controller.abort(new Error('Cancelled'))
      }
    }
    const renewal = setInterval(() => void keep().catch(() => {}), Math.max(50, options.leaseMs / 3))
    const timeout = setTimeout(
      () => controller.abort(new Error('The job ran past its time limit')),
      definition.timeoutMs ?? defaultTimeoutMs,
    )
    const output = jobOutputWriter(store, row.id, (error) =>
      log.warn({ jobId: row.id, kind: row.kind, err: error }, 'writing a job’s output failed'),
    )
    const view = jobRunOf(row, registered, store, {
      signal: controller.signal,
      progress: async (percent, step) => {
        const clamped = Math.max(0, Math.min(100, Math.round(percent)))
        await keep({ percent: clamped, step: step.slice(0, 200) })
      },
      output: (line, stream) => output.add(line, stream),
    })
    const began = performance.now()
    const done = (async () => {
      let outcome: JobOutcome
      let thrown: unknown
      try {
        const result = await definition.run(view)
        if (controller.signal.aborted && (cancelled || leaseLost || stopping)) throw controller.signal.reason
        outcome = { status: 'succeeded', result: result ?? {} }
      } catch (error) {
        thrown = error
        if (stopping && !cancelled) {
          // Returned only after stop() gave up waiting: the store may be closed; its lease runs out instead.
          if (stopped) return
          // Stopped on shutdown, and the handler has returned: nothing of this run goes on, so the lease is given
          // back and another instance takes the job over at once, not when the lease would have run out (a rolling
          // deploy). A handler that ignores its signal never gets here; its lease runs out instead.
          const givingBack = giveBack(row)
          givingBack.finally(() => givingBacks.delete(givingBack))
          givingBacks.add(givingBack)
          await givingBack
          return
        }
        if (leaseLost) {
          log.warn(
            { jobId: row.id, kind: row.kind, attempt: row.attempts },
            'job lease lost; its run is abandoned',
          )
          return // another worker holds it now
        }
        // A cancel accepted before this run noticed it still ends the job, rather than a retry.
        if (!cancelled && definition.cancellable) {
          const current = await findJobRow(store.db, row.id)
          if (current?.cancel_requested === 1) cancelled = true
        }
        const failure = errorOf(error)
        const maxAttempts = row.max_attempts
        if (cancelled) outcome = { status: 'cancelled', error: { code: 'cancelled', message: 'Cancelled.' } }
        else if (error instanceof JobFailure || row.attempts >= maxAttempts)
          outcome = { status: 'failed', error: failure }
        else
          outcome = {
            status: 'queued',
            error: failure,
            runAfter: new Date(Date.now() + retryDelayMs(row.attempts, options)),
          }
      } finally {
        clearInterval(renewal)
        clearTimeout(timeout)
      }
      // Every line the run reported is in the store before its end is: the event stream sends them before `end`.
      await output.flush()
      try {
        if (await finish(row, registered, outcome))
          report(row, outcome, (performance.now() - began) / 1000, thrown)
      } catch (error) {
        // The lease runs out and the job is taken up again: nothing is lost.
        log.error(
          { jobId: row.id, kind: row.kind, attempt: row.attempts, status: outcome.status, err: error },
          'recording the end of a job run failed',
        )
      }
    })().finally(() => {
      running.delete(row.id)
      void fill()
    })
    // Given up on shutdown while its handler still runs: its lease is no longer renewed, so it runs out and
    // another instance (or a later start) takes the job over.
    const abandon = () => {
      clearInterval(renewal)
      clearTimeout(timeout)
    }
    const cancel = () => {
      if (!definition.cancellable || controller.signal.aborted) return
      cancelled = true
      controller.abort(new Error('Cancelled'))
    }
    running.set(row.id, { controller, done, abandon, cancel, lane: laneOf(definition) })
  }

  /** Give-backs under way: `stop()` lets them finish before the store closes. */
  const givingBacks = new Set<Promise<void>>()

  /**
   * Ends this instance's lease of a job whose run it gave up, and wakes the instances that may take it. `unrun`:
   * claimed as the pool stopped and never run, so the attempt the claim counted is taken back (a job of one attempt,
   * a site's command, must not fail for a run that never was).
   */
  async function giveBack(row: JobsTable, how: { unrun: boolean } = { unrun: false }): Promise<void> {
    try {
      if (await releaseLease(store.db, row.id, owner, how)) await store.notify(store.db, jobsChannel)
    } catch (error) {
      // Then the lease runs out as it would have: nothing is lost.
      log.warn({ jobId: row.id, kind: row.kind, err: error }, 'giving back a job on shutdown failed')
    }
  }

  return {
    /** Wakes idle workers: a request just committed a job. */
    nudge(): void {
      if (started && !stopping) void fill()
    },
    start(): void {
      if (started) return
      started = true
      // A job enqueued on any instance wakes the pool when its transaction commits.
      listening = listenWhileRunning(
        store,
        jobsChannel,
        () => {
          if (started && !stopping) void fill()
        },
        (error) => log.error({ err: error }, 'listening for new jobs failed; polling alone finds them'),
      )
      // A cancel asked for on any instance reaches the run here as it commits (else at the next lease renewal).
      cancelListening = listenWhileRunning(
        store,
        jobCancelsChannel,
        () => {
          if (started && !stopping) void abortCancelled().catch(() => {})
        },
        (error) => log.error({ err: error }, 'listening for cancels failed; lease renewals find them'),
      )
      // Jobs queued under an earlier version whose kind has changed lanes since (or queued before lanes were
      // recorded) join their kind's lane before the first claim.
      moving = moveToTheirLanes(store, pools())
        .catch((error) => log.error({ err: error }, 'moving queued jobs to their lanes failed'))
        .finally(() => {
          void fill()
          schedule()
        })
    },
    async stop(): Promise<void> {
      if (!started || stopping) return
      stopping = true
      clearTimeout(timer)
      // Jobs are never waited for: each is asked to stop now and given back, to be resumed where it is next run
      // (its steps are made to be run again, as after a crash). Waiting would hold a stop for as long as a site
      // takes to provision.
      for (const entry of running.values()) entry.controller.abort(new Error('The panel is shutting down'))
      await Promise.all([listening?.stop(), cancelListening?.stop(), moving, claiming])
      const all = Promise.all([...running.values()].map((entry) => entry.done))
      // A handler that ignores its signal must not hold the shutdown: its job stays leased and is resumed later.
      await Promise.race([all, Bun.sleep(options.shutdownGraceMs)])
      for (const entry of running.values()) entry.abandon()
      // The jobs whose handlers stopped are being given back: a moment more, or their leases run out instead.
      await Promise.race([Promise.all(givingBacks), Bun.sleep(2_000)])
      stopped = true
    },
  }
}
