// Jobs as a client sees them, black-box through panel.handle: a plugin's route starts a job in its transaction,
// GET /jobs and /jobs/{id} show its status, progress and step, POST /jobs/{id}/cancel stops it, tenancy and scopes
// hold, and `job.finished` reaches event consumers and the webhooks section of the OpenAPI document.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import type { OutboxEvent } from '../events/event-consumer.ts'
import type { OutboxTables } from '../events/outbox-tables.ts'
import type { User } from '../identity/users.ts'
import { newId } from '../ids/ids.ts'
import type { Page } from '../pagination/paginate.ts'
import { definePlugin, type PluginDefinition } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { addMember } from '../tenancy/tenants.ts'
import { deferred, waitFor } from '../testing/async.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { brandA, customerA, customerB, fixturePlugin, twoTenants } from '../testing/tenancy-fixture.ts'
import { createTestUser } from '../testing/users.ts'
import { type JobDefinition, JobFailure, type JobRun, jobOutputLimits } from './job-definition.ts'
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
  /** Every `onGivenUp` call, with the job's status as the same transaction saw it. */
  readonly givenUp: { jobId: string; outcome: string; statusInTrx: string | undefined }[]
}

const newHarness = (): Harness => ({ scripts: new Map(), received: [], givenUp: [] })

const GadgetBuilt = t.Object({ id: t.String(), status: t.String() })

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
    harness.givenUp.push({ jobId: job.id, outcome, statusInTrx: row?.status })
    await trx
      .withTables<GadgetTables>()
      .updateTable('gadgets')
      .set({ status: outcome })
      .where('id', '=', job.subject.id)
      .execute()
    await job.emit(trx, {
      kind: 'gadget.built',
      customerId: job.customerId,
      data: { id: job.subject.id, status: outcome },
    })
  }
  return definePlugin({
    name: 'gadgets',
    version: '1.0.0',
    description: 'Test gadgets, built by jobs.',
    scopes: [{ name: 'gadget:create', description: 'Create gadgets' }],
    events: [{ kind: 'gadget.built', description: 'A gadget’s build ended.', payload: GadgetBuilt }],
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
        description: 'Builds a gadget; can be cancelled.',
        cancellable: true,
        maxAttempts: 3,
        run,
        onGivenUp,
      },
      {
        kind: 'gadget.seal',
        description: 'Seals a gadget; cannot be stopped.',
        maxAttempts: 2,
        run,
        onGivenUp,
      },
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
          name: t.String({ minLength: 1 }),
          kind: t.Union([t.Literal('gadget.build'), t.Literal('gadget.seal')]),
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
              input: { script: body.script, name: body.name },
            })
            await trx
              .withTables<GadgetTables>()
              .insertInto('gadgets')
              .values({
                id,
                customer_id: body.customerId,
                name: body.name,
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

const tenancy = fixturePlugin({ description: 'Two brands with a customer each.', tenants: twoTenants })
const timings = {
  jobs: { pollIntervalMs: 20, leaseMs: 300, retryBaseMs: 20, retryMaxMs: 100, shutdownGraceMs: 200 },
  events: { pollIntervalMs: 20 },
}

/** A promise that rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

interface Created {
  readonly id: string
  readonly status: string
  readonly jobId: string
}

async function createGadget(
  tp: TestPanel,
  token: string,
  body: { script: string; customerId?: string | null; kind?: 'gadget.build' | 'gadget.seal' },
): Promise<Created> {
  const response = await tp.request('POST', '/api/v1/gadgets', {
    token,
    body: { customerId: customerA, kind: 'gadget.build', name: body.script, ...body },
  })
  expect(response.status).toBe(201)
  const created = (await response.json()) as Created
  expect(created.jobId).toMatch(/^job_[0-9A-HJKMNP-TV-Z]{26}$/)
  return created
}

/** The events of a `text/event-stream` answer, read as a client reads them (comments and `retry` skipped). */
function serverSentEvents(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let ended = false
  async function block(): Promise<string | null> {
    for (;;) {
      const cut = buffer.indexOf('\n\n')
      if (cut >= 0) {
        const text = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        return text
      }
      const chunk = await reader.read()
      if (chunk.done) {
        ended = true
        return null
      }
      buffer += decoder.decode(chunk.value, { stream: true })
    }
  }
  return {
    async next(): Promise<{ id?: string; event?: string; data?: unknown }> {
      for (;;) {
        const text = await block()
        if (text === null) throw new Error('The stream ended')
        const fields = Object.fromEntries(
          text
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(':'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        )
        if (!fields.event) continue
        return { id: fields.id, event: fields.event, data: JSON.parse(fields.data ?? 'null') }
      }
    },
    /** Whether the stream ends with nothing more. */
    async done(): Promise<boolean> {
      return (await block()) === null && ended
    },
  }
}

async function getJob(tp: TestPanel, token: string, id: string): Promise<Job> {
  const response = await tp.request('GET', `/api/v1/jobs/${id}`, { token })
  expect(response.status).toBe(200)
  return (await response.json()) as Job
}

async function listJobs(tp: TestPanel, token: string, query = ''): Promise<Page<Job>> {
  const response = await tp.request('GET', `/api/v1/jobs${query}`, { token })
  expect(response.status).toBe(200)
  return (await response.json()) as Page<Job>
}

function cancel(tp: TestPanel, token: string, id: string): Promise<Response> {
  return tp.request('POST', `/api/v1/jobs/${id}/cancel`, { token })
}

/** Waits until the job reaches `status` (through GET /jobs/{id}) and answers it. */
function settled(tp: TestPanel, token: string, id: string, status: Job['status']): Promise<Job> {
  return waitFor(`${id} to be ${status}`, async () => {
    const job = await getJob(tp, token, id)
    return job.status === status ? job : undefined
  })
}

async function gadgetStatus(tp: TestPanel, id: string): Promise<string | undefined> {
  const row = await tp.panel.store.db
    .withTables<GadgetTables>()
    .selectFrom('gadgets')
    .select('status')
    .where('id', '=', id)
    .executeTakeFirst()
  return row?.status
}

/** The `job.finished` events of `jobId` in the outbox, as stored. */
async function finishedEventsInOutbox(tp: TestPanel, jobId: string) {
  const rows = await tp.panel.store.db
    .withTables<JobTables & OutboxTables>()
    .selectFrom('event_outbox')
    .selectAll()
    .where('kind', '=', 'job.finished')
    .orderBy('id')
    .execute()
  return rows.filter((row) => (JSON.parse(row.payload) as { id: string }).id === jobId)
}

/** Waits until the consumer has received `job.finished` for `jobId` and the outbox marks every copy dispatched. */
async function finishedReceived(tp: TestPanel, harness: Harness, jobId: string): Promise<OutboxEvent[]> {
  await waitFor(`job.finished of ${jobId} to be dispatched`, async () => {
    const rows = await finishedEventsInOutbox(tp, jobId)
    return rows.length > 0 && rows.every((row) => row.dispatched_at !== null)
  })
  return harness.received.filter((event) => event.kind === 'job.finished' && event.data.id === jobId)
}

const unknownJobId = 'job_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'

// ---------------------------------------------------------------------------------------------------------------

describe('a started panel runs jobs', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    tp = await createKernelTestPanel({ plugins: [tenancy, gadgetsPlugin(harness)], ...timings })
    token = await tp.token()
    tp.panel.start()
  })
  afterAll(() => tp.panel.close())

  test('a job shows progress and step while it runs, then succeeds with its result and job.finished once', async () => {
    const reached = deferred()
    const release = deferred()
    harness.scripts.set('lifecycle', async (job) => {
      await job.progress(40, 'Assembling')
      reached.resolve()
      await release.promise
      return { serial: 'G-1', attempt: job.attempt }
    })
    const created = await createGadget(tp, token, { script: 'lifecycle' })
    expect(created.status).toBe('building')
    await reached.promise

    const running = await getJob(tp, token, created.jobId)
    expect(running).toMatchObject({
      id: created.jobId,
      kind: 'gadget.build',
      status: 'running',
      progress: 40,
      step: 'Assembling',
      customerId: customerA,
      subject: { type: 'gadget', id: created.id },
      attempts: 1,
      maxAttempts: 3,
      cancellable: true,
      cancelRequested: false,
      result: null,
      error: null,
      finishedAt: null,
    })
    expect(running.startedAt).toEqual(expect.any(String))

    release.resolve()
    const done = await settled(tp, token, created.jobId, 'succeeded')
    expect(done).toMatchObject({
      status: 'succeeded',
      progress: 100,
      step: 'Assembling',
      attempts: 1,
      result: { serial: 'G-1', attempt: 1 },
      error: null,
      startedAt: running.startedAt,
    })
    expect(done.finishedAt).toEqual(expect.any(String))
    expect(Date.parse(done.finishedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(done.startedAt ?? ''))

    const events = await finishedReceived(tp, harness, created.jobId)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ kind: 'job.finished', customerId: customerA, brandId: brandA })
    // The event carries the job exactly as GET /jobs/{id} shows it in its final state.
    expect(events[0]?.data).toEqual(done as unknown as Record<string, unknown>)
    expect(await finishedEventsInOutbox(tp, created.jobId)).toHaveLength(1)
  })

  test('GET /jobs/{id}/events streams progress as it changes, then the finished job, and closes', async () => {
    const steps = [deferred(), deferred(), deferred()]
    harness.scripts.set('streamed', async (job) => {
      await steps[0]?.promise
      await job.progress(30, 'Cutting')
      await steps[1]?.promise
      await job.progress(70, 'Polishing')
      await steps[2]?.promise
      return { serial: 'S-1' }
    })
    const created = await createGadget(tp, token, { script: 'streamed' })
    const response = await tp.request('GET', `/api/v1/jobs/${created.jobId}/events`, { token })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('cache-control')).toBe('no-store')
    // A live stream has no tag (its representation is not known until it ends), and the document promises none:
    // it once declared an ETag and a 304 the stream never sent.
    expect(response.headers.get('etag')).toBeNull()
    const document = (await (await tp.request('GET', '/api/docs')).json()) as {
      paths: Record<
        string,
        { get: { responses: Record<string, { headers?: object }>; parameters: object[] } }
      >
    }
    const operation = document.paths['/api/v1/jobs/{id}/events']?.get
    expect(Object.keys(operation?.responses ?? {})).not.toContain('304')
    expect(Object.keys(operation?.responses[200]?.headers ?? {})).not.toContain('ETag')
    expect(operation?.parameters).not.toContainEqual(expect.objectContaining({ name: 'If-None-Match' }))
    const events = serverSentEvents(response)
    const first = await events.next()
    expect(first).toMatchObject({ event: 'progress', id: '1' })
    expect(['queued', 'running']).toContain((first.data as { status: string }).status)
    // Each change is one event, in order, whatever the stream read in between.
    const progressOf = async (step: string) => {
      for (;;) {
        const next = await events.next()
        expect(next.event).toBe('progress')
        if ((next.data as { step: string | null }).step === step) return next.data
      }
    }
    steps[0]?.resolve()
    expect(await progressOf('Cutting')).toMatchObject({ status: 'running', progress: 30, attempts: 1 })
    steps[1]?.resolve()
    expect(await progressOf('Polishing')).toMatchObject({ status: 'running', progress: 70 })
    steps[2]?.resolve()
    let end = await events.next()
    while (end.event === 'progress') end = await events.next()
    expect(end.event).toBe('end')
    expect(end.data).toEqual((await getJob(tp, token, created.jobId)) as unknown as Record<string, unknown>)
    expect(await events.done()).toBe(true)
  })

  test('output lines a job reports stream as output events, all before its end, cut at the job’s limit', async () => {
    const more = deferred()
    harness.scripts.set('chatty', async (job) => {
      job.output('first line')
      job.output('a warning', 'stderr')
      await more.promise
      for (let i = 0; i < jobOutputLimits.lines + 5; i++) job.output(`line ${i}`)
      job.output('x'.repeat(jobOutputLimits.lineChars + 10))
      return { ok: true }
    })
    const created = await createGadget(tp, token, { script: 'chatty' })
    const events = serverSentEvents(
      await tp.request('GET', `/api/v1/jobs/${created.jobId}/events`, { token }),
    )
    const output: { seq: number; stream: string; line: string }[] = []
    let next = await events.next()
    while (output.length < 2) {
      if (next.event === 'output') output.push(next.data as (typeof output)[number])
      if (output.length < 2) next = await events.next()
    }
    expect(output.map(({ seq, stream, line }) => [seq, stream, line])).toEqual([
      [1, 'stdout', 'first line'],
      [2, 'stderr', 'a warning'],
    ])
    more.resolve()
    let last = await events.next()
    while (last.event !== 'end') {
      if (last.event === 'output') output.push(last.data as (typeof output)[number])
      last = await events.next()
    }
    // The limit counts every line; the one past it says the rest was cut, and longer lines were never kept.
    expect(output).toHaveLength(jobOutputLimits.lines + 1)
    expect(output.at(-1)).toMatchObject({ stream: 'notice', line: 'Output cut: later lines are not kept.' })
    expect(output.map((line) => line.seq)).toEqual(output.map((_, index) => index + 1))
  })

  test('a finished job streams its last state and end at once; others’ jobs are 404; job:read is needed', async () => {
    harness.scripts.set('quick', async () => ({ ok: true }))
    const created = await createGadget(tp, token, { script: 'quick' })
    await settled(tp, token, created.jobId, 'succeeded')
    const events = serverSentEvents(
      await tp.request('GET', `/api/v1/jobs/${created.jobId}/events`, { token }),
    )
    expect((await events.next()).data).toMatchObject({ status: 'succeeded', progress: 100 })
    expect(await events.next()).toMatchObject({
      event: 'end',
      data: { id: created.jobId, status: 'succeeded' },
    })
    expect(await events.done()).toBe(true)
    const limited = await tp.token({ customerId: customerB })
    await expectProblem(
      await tp.request('GET', `/api/v1/jobs/${created.jobId}/events`, { token: limited }),
      404,
      'not_found',
    )
    const unscoped = await tp.token({ scopes: ['gadget:create'] })
    await expectProblem(
      await tp.request('GET', `/api/v1/jobs/${created.jobId}/events`, { token: unscoped }),
      403,
      'insufficient_scope',
    )
  })

  test('a running cancellable job: 202 cancelRequested, its signal aborts, it ends cancelled with onGivenUp', async () => {
    const reached = deferred()
    let reason: unknown
    harness.scripts.set('until-cancelled', async (job) => {
      await job.progress(10, 'Waiting')
      reached.resolve()
      try {
        return await aborted(job.signal)
      } catch (error) {
        reason = error
        throw error
      }
    })
    const created = await createGadget(tp, token, { script: 'until-cancelled' })
    await reached.promise

    const response = await cancel(tp, token, created.jobId)
    expect(response.status).toBe(202)
    expect(await response.json()).toMatchObject({
      id: created.jobId,
      status: 'running',
      cancelRequested: true,
    })

    const job = await settled(tp, token, created.jobId, 'cancelled')
    expect(job).toMatchObject({
      attempts: 1,
      cancelRequested: true,
      result: null,
      error: { code: 'cancelled' },
    })
    expect(job.finishedAt).toEqual(expect.any(String))
    expect(reason).toBeInstanceOf(Error)
    expect((reason as Error).message).toBe('Cancelled')
    expect(await gadgetStatus(tp, created.id)).toBe('cancelled')
    expect(harness.givenUp.filter((call) => call.jobId === created.jobId)).toEqual([
      { jobId: created.jobId, outcome: 'cancelled', statusInTrx: 'cancelled' },
    ])
    const events = await finishedReceived(tp, harness, created.jobId)
    expect(events.map((event) => event.data.status)).toEqual(['cancelled'])
  })

  test('a running job whose handler ignores the signal and returns still ends cancelled', async () => {
    const reached = deferred()
    harness.scripts.set('stubborn', async (job) => {
      reached.resolve()
      await waitFor('the signal to abort', () => job.signal.aborted)
      return { finishedAnyway: true }
    })
    const created = await createGadget(tp, token, { script: 'stubborn' })
    await reached.promise
    expect((await cancel(tp, token, created.jobId)).status).toBe(202)
    const job = await settled(tp, token, created.jobId, 'cancelled')
    expect(job.result).toBeNull()
    expect(await gadgetStatus(tp, created.id)).toBe('cancelled')
  })

  test('a running job of a kind that cannot be cancelled is 409 job_not_cancellable, and runs on', async () => {
    const reached = deferred()
    const release = deferred()
    harness.scripts.set('sealing', async () => {
      reached.resolve()
      await release.promise
      return { sealed: true }
    })
    const created = await createGadget(tp, token, { script: 'sealing', kind: 'gadget.seal' })
    await reached.promise
    await expectProblem(await cancel(tp, token, created.jobId), 409, 'job_not_cancellable')
    expect(await getJob(tp, token, created.jobId)).toMatchObject({
      status: 'running',
      cancellable: false,
      cancelRequested: false,
    })
    release.resolve()
    expect((await settled(tp, token, created.jobId, 'succeeded')).result).toEqual({ sealed: true })
  })

  test('a finished job is 409 job_not_cancellable and stays as it was', async () => {
    harness.scripts.set('quick', async () => ({ ok: true }))
    const created = await createGadget(tp, token, { script: 'quick' })
    const done = await settled(tp, token, created.jobId, 'succeeded')
    await expectProblem(await cancel(tp, token, created.jobId), 409, 'job_not_cancellable')
    expect(await getJob(tp, token, created.jobId)).toEqual(done)
  })

  test('a failed job shows error.code and onGivenUp marked the gadget failed', async () => {
    harness.scripts.set('hopeless', async () => {
      throw new JobFailure('The gadget cannot be built', 'gadget_broken')
    })
    const created = await createGadget(tp, token, { script: 'hopeless' })
    const job = await settled(tp, token, created.jobId, 'failed')
    expect(job).toMatchObject({
      attempts: 1,
      error: { code: 'gadget_broken', message: 'The gadget cannot be built' },
      result: null,
    })
    expect(await gadgetStatus(tp, created.id)).toBe('failed')
  })
})

describe('a panel that begins to stop (drain)', () => {
  test('ends its job event streams, gives its running job back at once, and is no longer ready', async () => {
    const harness = newHarness()
    const tp = await createKernelTestPanel({ plugins: [tenancy, gadgetsPlugin(harness)], ...timings })
    try {
      const token = await tp.token()
      tp.panel.start()
      const reached = deferred()
      harness.scripts.set('endless', async (job) => {
        reached.resolve()
        return aborted(job.signal)
      })
      const created = await createGadget(tp, token, { script: 'endless' })
      await reached.promise
      const events = serverSentEvents(
        await tp.request('GET', `/api/v1/jobs/${created.jobId}/events`, { token }),
      )
      expect((await events.next()).event).toBe('progress')
      await tp.panel.drain()
      // The stream ends between two events (its client reconnects elsewhere) instead of holding the stop an hour.
      expect(await events.done()).toBe(true)
      // Given back, not waited for: still running, with its lease lapsed, for another instance to take at once.
      const row = await tp.panel.store.db
        .withTables<JobTables>()
        .selectFrom('jobs')
        .select(['status', 'lease_until'])
        .where('id', '=', created.jobId)
        .executeTakeFirstOrThrow()
      expect(row.status).toBe('running')
      expect(Date.parse(row.lease_until ?? '')).toBeLessThan(Date.now() - 60_000)
      expect((await tp.request('GET', '/readyz')).status).toBe(503)
      // Requests are still answered while the host lets those in flight finish.
      expect((await tp.request('GET', `/api/v1/jobs/${created.jobId}`, { token })).status).toBe(200)
    } finally {
      await tp.panel.close()
    }
  })
})

describe('cancelling a queued job (the panel is not started)', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string

  beforeAll(async () => {
    tp = await createKernelTestPanel({ plugins: [tenancy, gadgetsPlugin(harness)], ...timings })
    token = await tp.token()
  })
  afterAll(() => tp.panel.close())

  test('200 with status cancelled; onGivenUp ran in that transaction; job.finished is in the outbox', async () => {
    const created = await createGadget(tp, token, { script: 'never-runs' })
    expect((await getJob(tp, token, created.jobId)).status).toBe('queued')

    const response = await cancel(tp, token, created.jobId)
    expect(response.status).toBe(200)
    const job = (await response.json()) as Job
    expect(job).toMatchObject({
      id: created.jobId,
      status: 'cancelled',
      attempts: 0,
      startedAt: null,
      error: { code: 'cancelled' },
    })
    expect(job.finishedAt).toEqual(expect.any(String))
    expect(await getJob(tp, token, created.jobId)).toEqual(job)
    expect(await gadgetStatus(tp, created.id)).toBe('cancelled')
    expect(harness.givenUp).toEqual([
      { jobId: created.jobId, outcome: 'cancelled', statusInTrx: 'cancelled' },
    ])

    const [event, ...more] = await finishedEventsInOutbox(tp, created.jobId)
    expect(more).toEqual([])
    expect(event).toMatchObject({ customer_id: customerA, brand_id: brandA, dispatched_at: null })
    expect(JSON.parse(event?.payload ?? '{}')).toEqual(job)
  })

  test('cancelling it again is 409 job_not_cancellable', async () => {
    const created = await createGadget(tp, token, { script: 'never-runs' })
    expect((await cancel(tp, token, created.jobId)).status).toBe(200)
    await expectProblem(await cancel(tp, token, created.jobId), 409, 'job_not_cancellable')
    expect(await finishedEventsInOutbox(tp, created.jobId)).toHaveLength(1)
  })

  test('a queued job of a kind that cannot be cancelled is 409 and stays queued', async () => {
    const created = await createGadget(tp, token, { script: 'never-runs', kind: 'gadget.seal' })
    await expectProblem(await cancel(tp, token, created.jobId), 409, 'job_not_cancellable')
    expect(await getJob(tp, token, created.jobId)).toMatchObject({ status: 'queued', cancellable: false })
    expect(await gadgetStatus(tp, created.id)).toBe('building')
  })

  test('unknown and malformed ids are 404 not_found', async () => {
    await expectProblem(await cancel(tp, token, unknownJobId), 404, 'not_found')
    await expectProblem(await cancel(tp, token, 'job_nope'), 404, 'not_found')
    await expectProblem(await tp.request('GET', `/api/v1/jobs/${unknownJobId}`, { token }), 404, 'not_found')
    await expectProblem(await tp.request('GET', '/api/v1/jobs/gad_123', { token }), 404, 'not_found')
  })

  test('a cancel is audited as job.cancel with the job, its customer and the request id', async () => {
    const created = await createGadget(tp, token, { script: 'never-runs' })
    const response = await cancel(tp, token, created.jobId)
    expect(response.status).toBe(200)
    const audit = await tp.request('GET', `/api/v1/audit?action=job.cancel&subject=${created.jobId}`, {
      token,
    })
    expect(audit.status).toBe(200)
    const { items } = (await audit.json()) as Page<Record<string, unknown>>
    expect(items).toEqual([
      expect.objectContaining({
        action: 'job.cancel',
        subject: { type: 'job', id: created.jobId },
        customerId: customerA,
        requestId: response.headers.get('x-request-id'),
        details: { kind: 'gadget.build', status: 'queued' },
      }),
    ])
  })

  test('cancelling needs job:cancel', async () => {
    const created = await createGadget(tp, token, { script: 'never-runs' })
    const readOnly = await tp.token({ scopes: ['job:read'] })
    const refused = await expectProblem(await cancel(tp, readOnly, created.jobId), 403, 'insufficient_scope')
    expect(refused.scope).toBe('job:cancel')
    expect((await getJob(tp, token, created.jobId)).status).toBe('queued')
  })
})

describe('GET /jobs: tenancy, scopes, filters and pages', () => {
  const harness = newHarness()
  let tp: TestPanel
  let token: string
  let member: User
  let memberToken: string
  /** Jobs made in order, oldest first. */
  const made = {} as Record<'a1' | 'aSeal' | 'b1' | 'staff' | 'a2', Created>

  beforeAll(async () => {
    tp = await createKernelTestPanel({ plugins: [tenancy, gadgetsPlugin(harness)], ...timings })
    token = await tp.token()
    made.a1 = await createGadget(tp, token, { script: 'x' })
    made.aSeal = await createGadget(tp, token, { script: 'x', kind: 'gadget.seal' })
    made.b1 = await createGadget(tp, token, { script: 'x', customerId: customerB })
    made.staff = await createGadget(tp, token, { script: 'x', customerId: null })
    made.a2 = await createGadget(tp, token, { script: 'x' })
    expect((await cancel(tp, token, made.a2.jobId)).status).toBe(200)
    member = await createTestUser(tp.panel.store.db, { email: 'dev@a.example', staffRole: null })
    await addMember(tp.panel.store.db, customerA, member.id, 'developer')
    memberToken = await tp.token({ user: member })
  })
  afterAll(() => tp.panel.close())

  const ids = (page: Page<Job>) => page.items.map((job) => job.id)

  test('staff see every job, newest first', async () => {
    const page = await listJobs(tp, token)
    expect(ids(page)).toEqual([made.a2, made.staff, made.b1, made.aSeal, made.a1].map((c) => c.jobId))
    expect(page.nextCursor).toBeNull()
    expect(page.items[0]).toMatchObject({ status: 'cancelled', kind: 'gadget.build', customerId: customerA })
    expect(page.items[1]).toMatchObject({
      status: 'queued',
      customerId: null,
      subject: { id: made.staff.id },
    })
  })

  test('filters by status, kind, customerId and subjectId narrow the list', async () => {
    expect(ids(await listJobs(tp, token, '?status=cancelled'))).toEqual([made.a2.jobId])
    expect(ids(await listJobs(tp, token, '?status=queued'))).toEqual(
      [made.staff, made.b1, made.aSeal, made.a1].map((c) => c.jobId),
    )
    expect(ids(await listJobs(tp, token, '?status=succeeded'))).toEqual([])
    expect(ids(await listJobs(tp, token, '?kind=gadget.seal'))).toEqual([made.aSeal.jobId])
    expect(ids(await listJobs(tp, token, `?customerId=${customerB}`))).toEqual([made.b1.jobId])
    expect(ids(await listJobs(tp, token, `?subjectId=${made.a1.id}`))).toEqual([made.a1.jobId])
    expect(
      ids(await listJobs(tp, token, `?kind=gadget.build&customerId=${customerA}&status=queued`)),
    ).toEqual([made.a1.jobId])
    await expectProblem(
      await tp.request('GET', '/api/v1/jobs?status=done', { token }),
      422,
      'validation_failed',
    )
  })

  test('pages of { items, nextCursor } walk every job once, newest first', async () => {
    const walked: string[] = []
    const sizes: number[] = []
    let cursor: string | null = null
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
      const page = await listJobs(tp, token, query)
      sizes.push(page.items.length)
      walked.push(...ids(page))
      cursor = page.nextCursor
    } while (cursor !== null)
    expect(sizes).toEqual([2, 2, 1])
    expect(walked).toEqual([made.a2, made.staff, made.b1, made.aSeal, made.a1].map((c) => c.jobId))
  })

  test('a member of customer A sees A’s jobs only; B’s and staff jobs are 404', async () => {
    const page = await listJobs(tp, memberToken)
    expect(ids(page)).toEqual([made.a2, made.aSeal, made.a1].map((c) => c.jobId))
    expect(ids(await listJobs(tp, memberToken, `?customerId=${customerB}`))).toEqual([])
    expect((await getJob(tp, memberToken, made.a1.jobId)).customerId).toBe(customerA)
    for (const other of [made.b1, made.staff]) {
      await expectProblem(
        await tp.request('GET', `/api/v1/jobs/${other.jobId}`, { token: memberToken }),
        404,
        'not_found',
      )
      await expectProblem(await cancel(tp, memberToken, other.jobId), 404, 'not_found')
      expect((await getJob(tp, token, other.jobId)).status).toBe('queued')
    }
  })

  test('a member may cancel A’s job (developers hold job:cancel)', async () => {
    const created = await createGadget(tp, token, { script: 'x' })
    const response = await cancel(tp, memberToken, created.jobId)
    expect(response.status).toBe(200)
    expect(((await response.json()) as Job).status).toBe('cancelled')
  })

  test('a token without job:read is 403 insufficient_scope', async () => {
    const narrow = await tp.token({ scopes: ['gadget:create'] })
    const list = await expectProblem(
      await tp.request('GET', '/api/v1/jobs', { token: narrow }),
      403,
      'insufficient_scope',
    )
    expect(list.scope).toBe('job:read')
    const one = await expectProblem(
      await tp.request('GET', `/api/v1/jobs/${made.a1.jobId}`, { token: narrow }),
      403,
      'insufficient_scope',
    )
    expect(one.scope).toBe('job:read')
  })
})

describe('the OpenAPI document', () => {
  let tp: TestPanel

  beforeAll(async () => {
    tp = await createKernelTestPanel({ plugins: [tenancy, gadgetsPlugin(newHarness())] })
  })
  afterAll(() => tp.panel.close())

  type Webhook = {
    post: {
      tags: string[]
      requestBody: {
        content: {
          'application/json': {
            schema: { required: string[]; properties: Record<string, Record<string, unknown>> }
          }
        }
      }
    }
  }
  const webhook = (kind: string) => {
    const webhooks = tp.panel.document.webhooks as Record<string, Webhook>
    return webhooks[kind]?.post
  }

  test('webhooks has job.finished, whose data is the Job schema', () => {
    const hook = webhook('job.finished')
    expect(hook?.tags).toEqual(['jobs'])
    const schema = hook?.requestBody.content['application/json'].schema
    expect(schema?.required).toEqual(['id', 'type', 'timestamp', 'data'])
    expect(schema?.properties.type).toEqual({ type: 'string', const: 'job.finished' })
    expect(schema?.properties.data).toEqual({ $ref: '#/components/schemas/Job' })
    const components = (tp.panel.document.components as { schemas: Record<string, { properties: object }> })
      .schemas
    expect(Object.keys(components.Job?.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'kind', 'status', 'progress', 'step', 'attempts', 'result', 'error']),
    )
  })

  test('webhooks has the plugin’s event kind, whose data is its payload schema', () => {
    const hook = webhook('gadget.built')
    expect(hook?.tags).toEqual(['gadgets'])
    const schema = hook?.requestBody.content['application/json'].schema
    expect(schema?.properties.type).toEqual({ type: 'string', const: 'gadget.built' })
    expect(schema?.properties.data).toEqual(JSON.parse(JSON.stringify(GadgetBuilt)))
  })
})
