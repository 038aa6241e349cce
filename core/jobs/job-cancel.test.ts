// A plugin cancelling its own jobs (a site deleted while it is provisioned), and what a failed job says: a running
// job is aborted as the cancel commits, long before its worker's next lease renewal; a queued one ends at once; a
// run's error keeps its own code, tried again unless it is a JobFailure; onGivenUp hears the last error.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { definePlugin, type PluginContext } from '../plugin/define-plugin.ts'
import { defineRoute } from '../plugin/route.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'

const problems = defineProblems({
  chore_blocked: {
    status: 409,
    detail: 'Blocked for now.',
    description: 'Something it needs is not there yet.',
  },
})
const givenUp: { id: string; outcome: string; code: string }[] = []
let context: PluginContext

const chores = definePlugin({
  name: 'chores',
  version: '1.0.0',
  description: 'Test chores.',
  scopes: [{ name: 'chore:create', description: 'Start and cancel chores' }],
  problems,
  setup(given) {
    context = given
  },
  jobs: () => [
    {
      kind: 'chore.wait',
      description: 'Waits until aborted.',
      cancellable: true,
      async run(job) {
        await new Promise((resolve) => job.signal.addEventListener('abort', resolve, { once: true }))
        throw job.signal.reason
      },
      async onGivenUp(_trx, job, outcome, error) {
        givenUp.push({ id: job.id, outcome, code: error.code })
      },
    },
    {
      kind: 'chore.coded',
      description: 'Fails with a code of its own, or a problem.',
      maxAttempts: 2,
      async run(job) {
        if (job.input.problem) throw new Problem(problems.chore_blocked)
        throw Object.assign(new Error('the node did not answer'), { code: 'node_unreachable' })
      },
      async onGivenUp(_trx, job, outcome, error) {
        givenUp.push({ id: job.id, outcome, code: error.code })
      },
    },
  ],
  routes: () => [
    defineRoute({
      method: 'POST',
      path: '/chores',
      operationId: 'startChore',
      scope: 'chore:create',
      audited: false,
      idempotent: false,
      body: t.Object({
        kind: t.String(),
        problem: t.Optional(t.Boolean()),
        delayMs: t.Optional(t.Integer()),
      }),
      responses: { 201: { description: 'Started.' } },
      async handler({ body }) {
        const jobId = await context.transaction((trx) =>
          context.enqueueJob(trx, {
            kind: body.kind,
            customerId: null,
            subject: { type: 'chore', id: 'chore_1' },
            input: { problem: body.problem === true },
            ...(body.delayMs === undefined ? {} : { runAt: new Date(Date.now() + body.delayMs) }),
          }),
        )
        return { jobId }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/chores/cancel',
      operationId: 'cancelChore',
      scope: 'chore:create',
      audited: false,
      body: t.Object({ jobId: t.String() }),
      responses: { 200: { description: 'What became of it.' } },
      async handler({ body }) {
        return { outcome: await context.transaction((trx) => context.cancelJob(trx, body.jobId)) }
      },
    }),
  ],
})

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createKernelTestPanel({
    plugins: [chores],
    // A lease renewed only every 10 s: a cancel heard sooner was heard as it committed.
    jobs: { pollIntervalMs: 10, leaseMs: 30_000, retryBaseMs: 10, retryMaxMs: 20 },
  })
  token = await tp.token()
  tp.panel.start()
})
afterAll(() => tp.panel.close())

const post = async (path: string, body: Record<string, unknown>) =>
  (await (await tp.request('POST', `/api/v1${path}`, { token, body })).json()) as Record<string, string>
const jobOf = async (id: string) =>
  (await (await tp.request('GET', `/api/v1/jobs/${id}`, { token })).json()) as {
    status: string
    attempts: number
    error: { code: string } | null
  }
async function until(id: string, status: string, ms: number): Promise<number> {
  const started = performance.now()
  while ((await jobOf(id)).status !== status) {
    if (performance.now() - started > ms) throw new Error(`job ${id} is not ${status} after ${ms} ms`)
    await Bun.sleep(20)
  }
  return performance.now() - started
}

describe('a plugin cancelling its jobs', () => {
  test('a running one is aborted as the cancel commits, not at its worker’s next lease renewal', async () => {
    const { jobId = '' } = await post('/chores', { kind: 'chore.wait' })
    await until(jobId, 'running', 2_000)
    expect((await post('/chores/cancel', { jobId })).outcome).toBe('requested')
    expect(await until(jobId, 'cancelled', 2_000)).toBeLessThan(2_000)
    expect(givenUp).toContainEqual({ id: jobId, outcome: 'cancelled', code: 'cancelled' })
  })

  test('a queued one ends at once; a finished one is left as it is', async () => {
    const { jobId = '' } = await post('/chores', { kind: 'chore.wait', delayMs: 60_000 })
    expect((await post('/chores/cancel', { jobId })).outcome).toBe('cancelled')
    expect((await jobOf(jobId)).status).toBe('cancelled')
    expect((await post('/chores/cancel', { jobId })).outcome).toBe('finished')
  })
})

describe('a failed job says why', () => {
  test('with its error’s own code, tried again, and given up with that code', async () => {
    const { jobId = '' } = await post('/chores', { kind: 'chore.coded' })
    await until(jobId, 'failed', 3_000)
    expect(await jobOf(jobId)).toMatchObject({ attempts: 2, error: { code: 'node_unreachable' } })
    expect(givenUp).toContainEqual({ id: jobId, outcome: 'failed', code: 'node_unreachable' })
  })

  test('with a problem’s code', async () => {
    const { jobId = '' } = await post('/chores', { kind: 'chore.coded', problem: true })
    await until(jobId, 'failed', 3_000)
    expect((await jobOf(jobId)).error?.code).toBe('chore_blocked')
  })
})
