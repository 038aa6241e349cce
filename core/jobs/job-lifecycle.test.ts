// A job from start to end as a client sees it: started by a request, run by the workers, read through /jobs, and
// announced as `job.finished`; retries, giving up, and cancelling.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import type { EventConsumer } from '../events/event-consumer.ts'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { JobFailure } from './job-definition.ts'
import { jobIsLive } from './job-queue.ts'

type Behaviour = 'succeed' | 'flaky' | 'broken' | 'hopeless' | 'wait'

const received: { kind: string; data: Record<string, unknown> }[] = []
const givenUp: string[] = []
let flakyFailures = 0
let release: () => void = () => {}

const consumer: EventConsumer = {
  name: 'test',
  async receive(_trx, event) {
    received.push({ kind: event.kind, data: event.data })
  },
}

const chores = definePlugin({
  name: 'chores',
  version: '1.0.0',
  description: 'Test chores.',
  scopes: [{ name: 'chore:create', description: 'Start chores' }],
  setup(context) {
    context.consumeEvents(consumer)
  },
  jobs: () => [
    {
      kind: 'chore.do',
      description: 'Does a chore as the test says.',
      maxAttempts: 3,
      cancellable: true,
      async run(job) {
        const behaviour = job.input.behaviour as Behaviour
        await job.progress(40, 'Halfway')
        if (behaviour === 'flaky' && flakyFailures++ < 2) throw new Error('not yet')
        if (behaviour === 'broken') throw new Error('always broken')
        if (behaviour === 'hopeless') throw new JobFailure('cannot ever work', 'chore_impossible')
        if (behaviour === 'wait') {
          await new Promise<void>((resolve) => {
            release = resolve
            job.signal.addEventListener('abort', () => resolve())
          })
          // A cancellable job checks in, which notices the cancel.
          await job.progress(60, 'Checking in')
          if (job.signal.aborted) throw job.signal.reason
        }
        return { done: behaviour }
      },
      async onGivenUp(_trx, job, outcome) {
        givenUp.push(`${job.id}:${outcome}`)
      },
    },
    {
      kind: 'chore.fixed',
      description: 'Cannot be cancelled.',
      async run() {
        return {}
      },
    },
  ],
  routes: () => [
    defineRoute({
      method: 'POST',
      audited: false,
      idempotent: false,
      path: '/chores',
      operationId: 'startChore',
      summary: 'Start a chore',
      scope: 'chore:create',
      responses: { 201: { description: 'The job started.' } },
      body: t.Object({
        behaviour: t.String(),
        kind: t.Optional(t.String()),
        delayMs: t.Optional(t.Integer({ minimum: 0 })),
      }),
      async handler({ body, enqueueJob, caller }) {
        const behaviour = body.behaviour as Behaviour
        const { kind, delayMs } = body
        const jobId = await tp.panel.store.transaction((trx) =>
          enqueueJob(trx, {
            kind: kind ?? 'chore.do',
            customerId: null,
            subject: { type: 'chore', id: caller.user.id },
            input: { behaviour },
            ...(delayMs === undefined ? {} : { runAt: new Date(Date.now() + delayMs) }),
          }),
        )
        return Reply.created({ jobId }, `/jobs/${jobId}`)
      },
    }),
  ],
})

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createKernelTestPanel({
    plugins: [chores],
    jobs: { pollIntervalMs: 10, leaseMs: 400, retryBaseMs: 10, retryMaxMs: 40, shutdownGraceMs: 100 },
    events: { pollIntervalMs: 10 },
  })
  token = await tp.token()
  tp.panel.start()
})
afterAll(() => tp.panel.close())

async function start(behaviour: Behaviour, kind?: string, delayMs?: number): Promise<string> {
  const response = await tp.request('POST', '/api/v1/chores', { token, body: { behaviour, kind, delayMs } })
  expect(response.status).toBe(201)
  return ((await response.json()) as { jobId: string }).jobId
}

interface JobBody {
  status: string
  createdAt: string
  startedAt: string | null
  progress: number
  step: string | null
  attempts: number
  result: Record<string, unknown> | null
  error: { code: string; message: string } | null
  cancelRequested: boolean
}

async function job(id: string): Promise<JobBody> {
  const response = await tp.request('GET', `/api/v1/jobs/${id}`, { token })
  expect(response.status).toBe(200)
  return (await response.json()) as JobBody
}

/** Polls until the job satisfies `done`; fails after ten seconds (a busy CI machine took more than two). */
async function until(id: string, done: (body: JobBody) => boolean): Promise<JobBody> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const body = await job(id)
    if (done(body)) return body
    if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(body)}`)
    await Bun.sleep(10)
  }
}

const finished = (body: JobBody) => ['succeeded', 'failed', 'cancelled'].includes(body.status)

describe('jobs', () => {
  test('a started job runs to succeeded, with its result, and job.finished is sent once', async () => {
    const id = await start('succeed')
    const body = await until(id, finished)
    expect(body).toMatchObject({
      status: 'succeeded',
      progress: 100,
      attempts: 1,
      result: { done: 'succeed' },
    })
    await Bun.sleep(50)
    const events = received.filter((event) => event.kind === 'job.finished' && event.data.id === id)
    expect(events).toHaveLength(1)
    expect(events[0]?.data).toMatchObject({ id, status: 'succeeded', kind: 'chore.do' })
  })

  test('a job started with runAt waits in the queue until its time, then runs', async () => {
    const id = await start('succeed', undefined, 400)
    await Bun.sleep(150)
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0, startedAt: null })
    const done = await until(id, (body) => body.status === 'succeeded')
    expect(Date.parse(done.startedAt ?? '') - Date.parse(done.createdAt)).toBeGreaterThanOrEqual(400)
  })

  test('a failing attempt is retried with backoff until it succeeds', async () => {
    const id = await start('flaky')
    const body = await until(id, finished)
    expect(body).toMatchObject({ status: 'succeeded', attempts: 3 })
  })

  test('a job that keeps failing ends failed after its attempts, and its owner hears of it', async () => {
    const id = await start('broken')
    const body = await until(id, finished)
    expect(body).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: { code: 'job_error', message: 'always broken' },
    })
    expect(givenUp).toContain(`${id}:failed`)
  })

  test('a JobFailure fails the job at once, with its code', async () => {
    const id = await start('hopeless')
    const body = await until(id, finished)
    expect(body).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'chore_impossible' } })
  })

  test('a running job shows its progress and step, and can be cancelled', async () => {
    const id = await start('wait')
    const running = await until(id, (body) => body.step === 'Halfway')
    expect(running).toMatchObject({ status: 'running', progress: 40 })
    const cancel = await tp.request('POST', `/api/v1/jobs/${id}/cancel`, { token })
    expect(cancel.status).toBe(202)
    expect(((await cancel.json()) as JobBody).cancelRequested).toBe(true)
    release()
    const body = await until(id, finished)
    expect(body.status).toBe('cancelled')
    expect(givenUp).toContain(`${id}:cancelled`)
    const again = await tp.request('POST', `/api/v1/jobs/${id}/cancel`, { token })
    expect(again.status).toBe(409)
    expect(((await again.json()) as { code: string }).code).toBe('job_not_cancellable')
  })

  test('a job is live while it waits to run and while it runs, and no longer once it ended', async () => {
    const db = tp.panel.store.db
    const later = await start('succeed', undefined, 300)
    expect(await jobIsLive(db, later)).toBe(true)
    const id = await start('wait')
    await until(id, (body) => body.status === 'running')
    expect(await jobIsLive(db, id)).toBe(true)
    // Released until it ends: `running` shows before the job reaches its wait, which a single release could miss.
    await until(id, (body) => {
      release()
      return finished(body)
    })
    expect(await jobIsLive(db, id)).toBe(false)
    await until(later, finished)
    expect(await jobIsLive(db, later)).toBe(false)
    expect(await jobIsLive(db, 'job_01JDQ3V6Y4T1ZK0M2N5P7R9S8W')).toBe(false)
  })

  test('a kind that cannot be cancelled answers 409 job_not_cancellable; unknown jobs are 404', async () => {
    const id = await start('succeed', 'chore.fixed')
    const response = await tp.request('POST', `/api/v1/jobs/${id}/cancel`, { token })
    expect(response.status).toBe(409)
    expect(((await response.json()) as { code: string }).code).toBe('job_not_cancellable')
    const missing = await tp.request('POST', '/api/v1/jobs/job_01JDQ3V6Y4T1ZK0M2N5P7R9S8W/cancel', { token })
    expect(missing.status).toBe(404)
  })

  test('the document lists job.finished in its webhooks section', () => {
    const webhooks = tp.panel.document.webhooks as Record<string, { post: { requestBody: unknown } }>
    expect(Object.keys(webhooks)).toContain('job.finished')
    expect(JSON.stringify(webhooks['job.finished']?.post.requestBody)).toContain('#/components/schemas/Job')
  })
})
