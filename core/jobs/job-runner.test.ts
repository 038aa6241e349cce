// The worker pool, black-box: retries with backoff, failing for good (onGivenUp in the same transaction), timeouts,
// a dead worker's job taken over once its lease ran out, a worker that lost its lease unable to overwrite the run
// that took over, and shutdown abandoning running jobs to a later start.
//
// The crash case is simulated two ways: by rewriting a job row as a dead worker would leave it (`running`, another
// `lease_owner`, a lease in the past), and for real on a file-backed store in a temporary directory: one panel is
// closed while its job runs, and a second panel on the same file resumes it.

import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type as t } from '@sinclair/typebox'
import type { OutboxEvent } from '../events/event-consumer.ts'
import type { OutboxTables } from '../events/outbox-tables.ts'
import { newId } from '../ids/ids.ts'
import { createPanel, type Panel } from '../panel/create-panel.ts'
import { definePlugin, type PluginContext, type PluginDefinition } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { openSqliteStore } from '../store/sqlite-store.ts'
import { deferred, waitFor } from '../testing/async.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { customerA } from '../testing/tenancy-fixture.ts'
import { type JobDefinition, JobFailure, type JobRun } from './job-definition.ts'
import type { Job } from './job-schema.ts'
import type { JobTables } from './job-tables.ts'

// ---------------------------------------------------------------------------------------------------------------
// Test-only helpers: a gadgets plugin whose jobs run scripts the tests control, deferreds and polling.

type GadgetTables = {
  gadgets: { id: string; customer_id: string | null; name: string; status: string; job_id: string }
}
type Script = (job: JobRun) => Promise<Readonly<Record<string, unknown>> | undefined>

/** What a test controls and observes of one panel's gadgets plugin. */
interface Harness {
  /** Job handlers by name; a job runs the script named by its input's `script`. */
  readonly scripts: Map<string, Script>
  /** Every event the plugin's consumer received, in order. */
  readonly received: OutboxEvent[]
  /** Every `onGivenUp` call, with the job's status and attempts as the same transaction saw them. */
  readonly givenUp: { jobId: string; outcome: string; statusInTrx: string | undefined; attempt: number }[]
  /** Scripts whose first `onGivenUp` throws (after its writes). */
  readonly breakGivenUpOnce: Set<string>
  /** The plugin's context, to start jobs as the installation does. */
  context?: PluginContext
}

const newHarness = (): Harness => ({
  scripts: new Map(),
  received: [],
  givenUp: [],
  breakGivenUpOnce: new Set(),
})

const kinds = ['gadget.build', 'gadget.seal', 'gadget.slow'] as const
type Kind = (typeof kinds)[number]

function gadgetsPlugin(harness: Harness): PluginDefinition {
  const run: JobDefinition['run'] = async (job) => {
    const name = String(job.input.script)
    const script = harness.scripts.get(name)
    if (!script) throw new JobFailure(`No script "${name}"`, 'no_script')
    return script(job)
  }
  const onGivenUp: JobDefinition['onGivenUp'] = async (trx, job, outcome) => {
    const row = await trx
      .withTables<JobTables & OutboxTables>()
      .selectFrom('jobs')
      .select('status')
      .where('id', '=', job.id)
      .executeTakeFirst()
    harness.givenUp.push({ jobId: job.id, outcome, statusInTrx: row?.status, attempt: job.attempt })
    await trx
      .withTables<GadgetTables>()
      .updateTable('gadgets')
      .set({ status: outcome })
      .where('id', '=', job.subject.id)
      .execute()
    if (harness.breakGivenUpOnce.delete(String(job.input.script))) throw new Error('onGivenUp broke')
  }
  return definePlugin({
    name: 'gadgets',
    version: '1.0.0',
    description: 'Test gadgets, built by jobs.',
    scopes: [{ name: 'gadget:create', description: 'Create gadgets' }],
    events: [
      { kind: 'gadget.built', description: 'A gadget was built.', payload: t.Object({ id: t.String() }) },
    ],
    migrations: [
      {
        id: '0001_gadgets',
        up: (db) =>
          db.schema
            .createTable('gadgets')
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('customer_id', 'text')
            .addColumn('name', 'text', (c) => c.notNull())
            .addColumn('status', 'text', (c) => c.notNull())
            .addColumn('job_id', 'text', (c) => c.notNull())
            .execute(),
      },
    ],
    setup(context) {
      harness.context = context
      context.consumeEvents({
        name: 'gadget-recorder',
        receive: async (_trx, event) => {
          harness.received.push(event)
        },
      })
    },
    jobs: () => [
      {
        kind: 'gadget.build',
        description: 'Builds; cancellable.',
        cancellable: true,
        maxAttempts: 3,
        run,
        onGivenUp,
      },
      { kind: 'gadget.seal', description: 'Seals; two attempts.', maxAttempts: 2, run, onGivenUp },
      { kind: 'gadget.slow', description: 'Times out.', maxAttempts: 1, timeoutMs: 100, run, onGivenUp },
    ],
    routes: (context) => [
      defineRoute({
        method: 'POST',
        audited: false,
        idempotent: false,
        path: '/gadgets',
        operationId: 'createGadget',
        summary: 'Create a gadget',
        scope: 'gadget:create',
        body: t.Object({
          customerId: t.Union([t.String(), t.Null()]),
          kind: t.Union(kinds.map((kind) => t.Literal(kind))),
          script: t.String({ minLength: 1 }),
        }),
        responses: { 201: { description: 'The gadget, being built.' } },
        async handler({ body, enqueueJob }) {
          return context.transaction(async (trx) => {
            const id = newId('gad')
            const jobId = await enqueueJob(trx, {
              kind: body.kind,
              customerId: body.customerId,
              subject: { type: 'gadget', id },
              input: { script: body.script },
            })
            await trx
              .withTables<GadgetTables>()
              .insertInto('gadgets')
              .values({
                id,
                customer_id: body.customerId,
                name: body.script,
                status: 'building',
                job_id: jobId,
              })
              .execute()
            return Reply.created({ id, status: 'building', jobId }, `/gadgets/${id}`)
          })
        },
      }),
    ],
  })
}

const jobTimings = {
  pollIntervalMs: 20,
  leaseMs: 300,
  retryBaseMs: 20,
  retryMaxMs: 100,
  shutdownGraceMs: 200,
}
const eventTimings = { pollIntervalMs: 20 }
const secret = 'test-secret-test-secret-test-secret-!'

/** A promise that rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

interface Created {
  readonly id: string
  readonly jobId: string
}

async function createGadget(tp: TestPanel, token: string, script: string, kind: Kind = 'gadget.build') {
  const response = await tp.request('POST', '/api/v1/gadgets', {
    token,
    body: { customerId: customerA, kind, script },
  })
  expect(response.status).toBe(201)
  return (await response.json()) as Created
}

async function getJob(tp: TestPanel, token: string, id: string): Promise<Job> {
  const response = await tp.request('GET', `/api/v1/jobs/${id}`, { token })
  expect(response.status).toBe(200)
  return (await response.json()) as Job
}

function settled(tp: TestPanel, token: string, id: string, status: Job['status']): Promise<Job> {
  return waitFor(`${id} to be ${status}`, async () => {
    const job = await getJob(tp, token, id)
    return job.status === status ? job : undefined
  })
}

const jobRow = (panel: Panel, id: string) =>
  panel.store.db
    .withTables<JobTables & OutboxTables>()
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()

async function gadgetStatus(panel: Panel, id: string): Promise<string | undefined> {
  const row = await panel.store.db
    .withTables<GadgetTables>()
    .selectFrom('gadgets')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirst()
  return row?.status
}

/** The `job.finished` events of `jobId` in the outbox. */
async function finishedEvents(panel: Panel, jobId: string) {
  const rows = await panel.store.db
    .withTables<JobTables & OutboxTables>()
    .selectFrom('event_outbox')
    .selectAll()
    .where('kind', '=', 'job.finished')
    .execute()
  return rows.filter((row) => (JSON.parse(row.payload) as { id: string }).id === jobId)
}

/** Waits until `job.finished` of `jobId` is dispatched, then answers what the consumer received of it. */
async function finishedReceived(panel: Panel, harness: Harness, jobId: string) {
  await waitFor(`job.finished of ${jobId} to be dispatched`, async () => {
    const rows = await finishedEvents(panel, jobId)
    return rows.length > 0 && rows.every((row) => row.dispatched_at !== null)
  })
  return harness.received.filter((event) => event.kind === 'job.finished' && event.data.id === jobId)
}

/** Silences `console.error` for the duration of `work`, answering what was logged. */
async function quietly(work: () => Promise<void>): Promise<unknown[][]> {
  const spy = spyOn(console, 'error').mockImplementation(() => {})
  try {
    await work()
    return spy.mock.calls.map((call) => [...call])
  } finally {
    spy.mockRestore()
  }
}

// ---------------------------------------------------------------------------------------------------------------

describe('retries and failures', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    tp = await createKernelTestPanel({
      plugins: [gadgetsPlugin(harness)],
      jobs: jobTimings,
      events: eventTimings,
    })
    token = await tp.token()
    tp.panel.start()
  })
  afterAll(() => tp.panel.close())

  test('a handler that throws twice then succeeds ends succeeded after 3 attempts; the last error shows meanwhile', async () => {
    const third = deferred()
    const release = deferred()
    const attempts: number[] = []
    harness.scripts.set('flaky', async (job) => {
      attempts.push(job.attempt)
      if (job.attempt < 3) throw new Error(`flaky ${job.attempt}`)
      third.resolve()
      await release.promise
      return { built: true }
    })
    const created = await createGadget(tp, token, 'flaky')
    await third.promise
    // While the third attempt runs, the job still shows the failure of the second.
    expect(await getJob(tp, token, created.jobId)).toMatchObject({
      status: 'running',
      attempts: 3,
      error: { code: 'job_error', message: 'flaky 2' },
    })
    release.resolve()
    const done = await settled(tp, token, created.jobId, 'succeeded')
    expect(done).toMatchObject({ attempts: 3, error: null, result: { built: true }, progress: 100 })
    expect(attempts).toEqual([1, 2, 3])
    expect(await gadgetStatus(tp.panel, created.id)).toBe('building')
    expect(harness.givenUp.filter((call) => call.jobId === created.jobId)).toEqual([])
    expect((await finishedReceived(tp.panel, harness, created.jobId)).map((e) => e.data.status)).toEqual([
      'succeeded',
    ])
  })

  test('while waiting for a retry the job is queued with the error of the failed attempt', async () => {
    const second = deferred()
    const release = deferred()
    const attempts: number[] = []
    harness.scripts.set('retry-visible', async (job) => {
      attempts.push(job.attempt)
      if (job.attempt === 1) throw new Error('first try failed')
      second.resolve()
      await release.promise
      return {}
    })
    const created = await createGadget(tp, token, 'retry-visible')
    const queued = await waitFor('the failed first attempt', async () => {
      const job = await getJob(tp, token, created.jobId)
      return job.status === 'queued' && job.attempts === 1 ? job : undefined
    })
    expect(queued.error).toEqual({ code: 'job_error', message: 'first try failed' })
    expect(queued.finishedAt).toBeNull()
    await second.promise
    release.resolve()
    expect((await settled(tp, token, created.jobId, 'succeeded')).attempts).toBe(2)
    expect(attempts).toEqual([1, 2])
  })

  test('a handler that always throws ends failed after maxAttempts, onGivenUp in the same transaction', async () => {
    let runs = 0
    harness.scripts.set('always-throws', async () => {
      runs += 1
      throw new Error('boom')
    })
    const created = await createGadget(tp, token, 'always-throws', 'gadget.seal')
    const job = await settled(tp, token, created.jobId, 'failed')
    expect(job).toMatchObject({ attempts: 2, maxAttempts: 2, error: { code: 'job_error', message: 'boom' } })
    expect(job.finishedAt).toEqual(expect.any(String))
    expect(runs).toBe(2)
    expect(await gadgetStatus(tp.panel, created.id)).toBe('failed')
    // onGivenUp saw the job already failed: it ran inside the transaction that marked it so.
    expect(harness.givenUp.filter((call) => call.jobId === created.jobId)).toEqual([
      { jobId: created.jobId, outcome: 'failed', statusInTrx: 'failed', attempt: 2 },
    ])
    const events = await finishedReceived(tp.panel, harness, created.jobId)
    expect(events.map((event) => event.data)).toEqual([job as unknown as Record<string, unknown>])
  })

  test('a JobFailure fails the job at once, with its code', async () => {
    let runs = 0
    harness.scripts.set('job-failure', async () => {
      runs += 1
      throw new JobFailure('msg', 'some_code')
    })
    const created = await createGadget(tp, token, 'job-failure')
    const job = await settled(tp, token, created.jobId, 'failed')
    expect(job).toMatchObject({ attempts: 1, maxAttempts: 3, error: { code: 'some_code', message: 'msg' } })
    expect(runs).toBe(1)
    expect(await gadgetStatus(tp.panel, created.id)).toBe('failed')
  })

  test('a run past its timeout is aborted and counts as a failed attempt', async () => {
    harness.scripts.set('too-slow', (job) => aborted(job.signal))
    const created = await createGadget(tp, token, 'too-slow', 'gadget.slow')
    const job = await settled(tp, token, created.jobId, 'failed')
    expect(job).toMatchObject({
      attempts: 1,
      error: { code: 'job_error', message: 'The job ran past its time limit' },
    })
  })

  test('when onGivenUp throws, marking the job failed rolls back with it; the job is taken up again', async () => {
    let runs = 0
    harness.scripts.set('given-up-breaks', async () => {
      runs += 1
      throw new Error('always')
    })
    harness.breakGivenUpOnce.add('given-up-breaks')
    let job: Job | undefined
    let created: Created | undefined
    const logged = await quietly(async () => {
      created = await createGadget(tp, token, 'given-up-breaks', 'gadget.seal')
      job = await settled(tp, token, created.jobId, 'failed')
    })
    if (!created || !job) throw new Error('unreachable')
    // Attempt 2 failed for good, but its onGivenUp threw: nothing of that transaction stuck, the lease ran out and
    // a third run ended it.
    expect(job.attempts).toBe(3)
    expect(runs).toBe(3)
    expect(
      harness.givenUp.filter((call) => call.jobId === created?.jobId).map((call) => call.attempt),
    ).toEqual([2, 3])
    expect(await gadgetStatus(tp.panel, created.id)).toBe('failed')
    expect(await finishedReceived(tp.panel, harness, created.jobId)).toHaveLength(1)
    expect(logged.some((call) => String(call[0]).includes(created?.jobId ?? '?'))).toBe(true)
  })
})

describe('cancelling a running job whose attempt then fails', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    // A long lease: the lease renewal (every leaseMs / 3) never notices the cancel within this test.
    tp = await createKernelTestPanel({
      plugins: [gadgetsPlugin(harness)],
      jobs: { ...jobTimings, leaseMs: 30_000 },
      events: eventTimings,
    })
    token = await tp.token()
    tp.panel.start()
  })
  afterAll(() => tp.panel.close())

  // BUG (job-runner.ts, run()): when an attempt fails after a cancel was requested but before a lease renewal or
  // progress() noticed it, the failure is retried like any other: the job is run again and can even succeed,
  // although the cancel was accepted with 202. Expected: the job ends `cancelled` and is not run again.
  test('BUG: a failure after an accepted cancel ends the job cancelled instead of retrying it', async () => {
    const reached = deferred()
    const release = deferred()
    const attempts: number[] = []
    harness.scripts.set('fails-after-cancel', async (job) => {
      attempts.push(job.attempt)
      if (job.attempt > 1) return { ranAgain: true }
      reached.resolve()
      await release.promise
      throw new Error('transient failure')
    })
    const created = await createGadget(tp, token, 'fails-after-cancel')
    await reached.promise
    const response = await tp.request('POST', `/api/v1/jobs/${created.jobId}/cancel`, { token })
    expect(response.status).toBe(202)
    release.resolve()
    const job = await waitFor('the job to end', async () => {
      const current = await getJob(tp, token, created.jobId)
      return ['succeeded', 'failed', 'cancelled'].includes(current.status) ? current : undefined
    })
    expect({ status: job.status, attempts }).toEqual({ status: 'cancelled', attempts: [1] })
  })
})

describe('a dead worker’s job is taken over once its lease ran out', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    tp = await createKernelTestPanel({
      plugins: [gadgetsPlugin(harness)],
      jobs: jobTimings,
      events: eventTimings,
    })
    token = await tp.token()
  })
  afterAll(() => tp.panel.close())

  test('an expired lease of another worker is resumed (attempts + 1) and succeeds once; a live one is left alone', async () => {
    const seen: { id: string; attempt: number }[] = []
    harness.scripts.set('resumable', async (job) => {
      seen.push({ id: job.id, attempt: job.attempt })
      await job.progress(60, 'Resumed')
      return { attempt: job.attempt }
    })
    // Queued while the panel is not started, then left as dead (and live) workers leave them.
    const dead = await createGadget(tp, token, 'resumable')
    const alive = await createGadget(tp, token, 'resumable')
    const startedAt = '2020-01-01T00:00:00.000Z'
    const jobs = tp.panel.store.db.withTables<JobTables & OutboxTables>()
    await jobs
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        lease_owner: 'wrk_dead',
        lease_until: new Date(Date.now() - 1_000).toISOString(),
        started_at: startedAt,
        progress: 30,
        step: 'Halfway',
      })
      .where('id', '=', dead.jobId)
      .execute()
    await jobs
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        lease_owner: 'wrk_alive',
        lease_until: new Date(Date.now() + 3_600_000).toISOString(),
        started_at: startedAt,
      })
      .where('id', '=', alive.jobId)
      .execute()
    expect((await getJob(tp, token, dead.jobId)).status).toBe('running')

    tp.panel.start()
    const done = await settled(tp, token, dead.jobId, 'succeeded')
    expect(done).toMatchObject({
      attempts: 2,
      result: { attempt: 2 },
      progress: 100,
      step: 'Resumed',
      startedAt,
    })
    expect(seen.filter((run) => run.id === dead.jobId)).toEqual([{ id: dead.jobId, attempt: 2 }])
    expect(await finishedReceived(tp.panel, harness, dead.jobId)).toHaveLength(1)

    // A later job runs to its end; the job whose lease is still live was not touched meanwhile.
    const later = await createGadget(tp, token, 'resumable')
    await settled(tp, token, later.jobId, 'succeeded')
    expect(await jobRow(tp.panel, alive.jobId)).toMatchObject({
      status: 'running',
      attempts: 1,
      lease_owner: 'wrk_alive',
    })
    expect(seen.some((run) => run.id === alive.jobId)).toBe(false)
    expect(await finishedEvents(tp.panel, dead.jobId)).toHaveLength(1)
  })
})

describe('a worker that lost its lease', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    // One worker: the next job can only start once the old run has left the pool.
    tp = await createKernelTestPanel({
      plugins: [gadgetsPlugin(harness)],
      jobs: { ...jobTimings, concurrency: 1 },
      events: eventTimings,
    })
    token = await tp.token()
    tp.panel.start()
  })
  afterAll(() => tp.panel.close())

  test('has its signal aborted and cannot overwrite the outcome of the run that took over', async () => {
    const reached = deferred()
    const release = deferred()
    let signal: AbortSignal | undefined
    harness.scripts.set('taken-over', async (job) => {
      signal = job.signal
      reached.resolve()
      await release.promise
      return { from: 'the old run' }
    })
    harness.scripts.set('next', async () => ({}))
    const created = await createGadget(tp, token, 'taken-over')
    await reached.promise
    // Another worker took the job over (as after this one stalled past its lease) and runs it as attempt 2.
    await tp.panel.store.db
      .withTables<JobTables & OutboxTables>()
      .updateTable('jobs')
      .set({
        lease_owner: 'wrk_other',
        lease_until: new Date(Date.now() + 3_600_000).toISOString(),
        attempts: 2,
      })
      .where('id', '=', created.jobId)
      .execute()
    // Its next lease renewal finds the lease gone and aborts the handler's signal.
    await waitFor('the lease renewal to notice', () => signal?.aborted)
    expect(signal?.reason).toBeInstanceOf(Error)
    expect((signal?.reason as Error | undefined)?.message).toBe('The job’s lease was lost')
    // The handler ignores that and returns a result: it must not be recorded.
    release.resolve()
    const next = await createGadget(tp, token, 'next')
    await settled(tp, token, next.jobId, 'succeeded')

    expect(await jobRow(tp.panel, created.jobId)).toMatchObject({
      status: 'running',
      lease_owner: 'wrk_other',
      attempts: 2,
      result: null,
      error: null,
      finished_at: null,
    })
    expect(await finishedEvents(tp.panel, created.jobId)).toEqual([])
    expect(await gadgetStatus(tp.panel, created.id)).toBe('building')
  })
})

describe('a worker that lost its lease without noticing', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    // One worker, and a lease long enough that no renewal runs during the test: the old run reaches its end
    // believing it still holds the job, so only finishRun's lease check protects the run that took over.
    tp = await createKernelTestPanel({
      plugins: [gadgetsPlugin(harness)],
      jobs: { ...jobTimings, concurrency: 1, leaseMs: 30_000 },
      events: eventTimings,
    })
    token = await tp.token()
    tp.panel.start()
  })
  afterAll(() => tp.panel.close())

  test('cannot record its outcome over the run that took over', async () => {
    const reached = deferred()
    const release = deferred()
    let signalAborted = true
    harness.scripts.set('unaware', async (job) => {
      reached.resolve()
      await release.promise
      signalAborted = job.signal.aborted
      throw new JobFailure('the old run failed', 'old_run')
    })
    harness.scripts.set('next', async () => ({}))
    const created = await createGadget(tp, token, 'unaware')
    await reached.promise
    await tp.panel.store.db
      .withTables<JobTables & OutboxTables>()
      .updateTable('jobs')
      .set({
        lease_owner: 'wrk_other',
        lease_until: new Date(Date.now() + 3_600_000).toISOString(),
        attempts: 2,
      })
      .where('id', '=', created.jobId)
      .execute()
    release.resolve()
    const next = await createGadget(tp, token, 'next')
    await settled(tp, token, next.jobId, 'succeeded')

    expect(signalAborted).toBe(false)
    expect(await jobRow(tp.panel, created.jobId)).toMatchObject({
      status: 'running',
      lease_owner: 'wrk_other',
      attempts: 2,
      error: null,
      finished_at: null,
    })
    expect(harness.givenUp).toEqual([])
    expect(await finishedEvents(tp.panel, created.jobId)).toEqual([])
    expect(await gadgetStatus(tp.panel, created.id)).toBe('building')
  })
})

describe('shutdown (file-backed store in a temporary directory)', () => {
  let dir: string
  const panels: Panel[] = []

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'plinth-jobs-'))
  })
  afterAll(async () => {
    for (const panel of panels) await panel.close()
    rmSync(dir, { recursive: true, force: true })
  })

  async function openPanel(path: string, harness: Harness): Promise<Panel> {
    const panel = await createPanel({
      store: openSqliteStore({ path }),
      plugins: [gadgetsPlugin(harness)],
      secret,
      jobs: jobTimings,
      events: eventTimings,
    })
    panels.push(panel)
    return panel
  }

  /** Starts a job as the installation does (no request), through the plugin's context. */
  async function enqueue(harness: Harness, script: string): Promise<string> {
    const context = harness.context
    if (!context) throw new Error('The plugin was not set up')
    return context.transaction((trx) =>
      context.enqueueJob(trx, {
        kind: 'gadget.build',
        customerId: customerA,
        subject: { type: 'gadget', id: newId('gad') },
        input: { script },
      }),
    )
  }

  const rowIn = async (path: string, id: string) => {
    const store = openSqliteStore({ path })
    try {
      return await store.db
        .withTables<JobTables & OutboxTables>()
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
    } finally {
      await store.close()
    }
  }

  test('close() abandons a running job that honours its signal; a later start resumes it and it succeeds once', async () => {
    const path = join(dir, 'resume.db')
    const first = newHarness()
    const reached = deferred()
    first.scripts.set('long', async (job) => {
      await job.progress(50, 'Waiting')
      reached.resolve()
      return aborted(job.signal)
    })
    const panel1 = await openPanel(path, first)
    panel1.start()
    const jobId = await enqueue(first, 'long')
    await reached.promise
    await panel1.close()

    // Abandoned, not failed: still running, with its progress, for a later start to take over.
    expect(await rowIn(path, jobId)).toMatchObject({
      status: 'running',
      attempts: 1,
      progress: 50,
      step: 'Waiting',
      error: null,
      finished_at: null,
    })

    const second = newHarness()
    const seen: number[] = []
    second.scripts.set('long', async (job) => {
      seen.push(job.attempt)
      return { resumed: true }
    })
    const panel2 = await openPanel(path, second)
    panel2.start()
    const row = await waitFor('the resumed job to succeed', async () => {
      const current = await jobRow(panel2, jobId)
      return current?.status === 'succeeded' ? current : undefined
    })
    expect(row).toMatchObject({ attempts: 2, result: JSON.stringify({ resumed: true }), error: null })
    expect(seen).toEqual([2])
    expect(await finishedReceived(panel2, second, jobId)).toHaveLength(1)
  })

  // BUG (job-runner.ts, stop()): after the grace period it aborts the running jobs and then awaits them without a
  // bound (`await all`), so a handler that ignores its signal keeps panel.close() from ever resolving; the doc says
  // such jobs are abandoned to a later start. Expected: close() resolves shortly after shutdownGraceMs.
  test('BUG: close() resolves after the grace period even if a handler ignores its signal; the job stays running', async () => {
    const path = join(dir, 'stubborn.db')
    const harness = newHarness()
    const reached = deferred()
    const release = deferred()
    harness.scripts.set('stubborn', async () => {
      reached.resolve()
      await release.promise
      return { late: true }
    })
    const panel = await openPanel(path, harness)
    panel.start()
    const jobId = await enqueue(harness, 'stubborn')
    await reached.promise

    const closing = panel.close().then(() => 'closed' as const)
    // Five times the grace period: only a close that waits for the stuck handler misses it.
    const bound = Bun.sleep(jobTimings.shutdownGraceMs * 5).then(() => 'still waiting' as const)
    const outcome = await Promise.race([closing, bound])
    release.resolve()
    await closing

    expect(await rowIn(path, jobId)).toMatchObject({
      status: 'running',
      attempts: 1,
      result: null,
      error: null,
      finished_at: null,
    })
    expect(outcome).toBe('closed')
  })
})
