// Jobs with two panel instances on one store (the engine of the run): each job enqueued runs exactly once, however
// the two claim at once; a job whose instance stopped without finishing it is finished by the other once its lease
// ran out (and not before); and a job enqueued on one instance is started by the other at once, though that one
// polls only once a minute (store.notify / store.listen).

import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newId } from '../ids/ids.ts'
import { definePlugin, type PluginContext } from '../plugin/define-plugin.ts'
import { deferred, waitFor } from '../testing/async.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import type { JobRun } from './job-definition.ts'
import type { JobRunnerOptions } from './job-runner.ts'
import type { JobTables } from './job-tables.ts'

/** One run of a job, as the instance that ran it saw it. */
interface Run {
  readonly instance: string
  readonly jobId: string
  readonly attempt: number
}

/** One instance: its panel, the context its plugin got (to enqueue as the installation does), and its handler. */
interface Instance {
  readonly name: string
  readonly tp: TestPanel
  readonly context: PluginContext
  /** What this instance's `chore.do` handler does; default: nothing, at once. */
  handler: (job: JobRun) => Promise<void>
}

const runs: Run[] = []
const instances: Instance[] = []

afterEach(async () => {
  for (const instance of instances.splice(0)) await instance.tp.panel.close()
})

/** Two instances (`a`, `b`) of one installation on a fresh store, neither started. */
async function twoInstances(jobs: Partial<JobRunnerOptions>): Promise<[Instance, Instance]> {
  const storePath = join(mkdtempSync(join(tmpdir(), 'plinth-jobs-')), 'plinth.sqlite')
  runs.length = 0
  const made: Instance[] = []
  for (const name of ['a', 'b']) {
    let context: PluginContext | undefined
    const instance: { handler: Instance['handler'] } = { handler: async () => {} }
    const chores = definePlugin({
      name: 'chores',
      version: '1.0.0',
      description: 'Test chores.',
      setup(given) {
        context = given
      },
      jobs: () => [
        {
          kind: 'chore.do',
          description: 'Records which instance ran it.',
          async run(job) {
            runs.push({ instance: name, jobId: job.id, attempt: job.attempt })
            await instance.handler(job)
            return { ranOn: name }
          },
        },
      ],
    })
    const tp = await createKernelTestPanel({ plugins: [chores], storePath, jobs })
    if (!context) throw new Error('The plugin was not set up')
    const built: Instance = Object.assign(instance, { name, tp, context })
    made.push(built)
    instances.push(built)
  }
  return made as [Instance, Instance]
}

/** Enqueues a chore on `instance`, as the installation does; its id once committed. */
function enqueue(instance: Instance): Promise<string> {
  return instance.context.transaction((trx) =>
    instance.context.enqueueJob(trx, {
      kind: 'chore.do',
      customerId: null,
      subject: { type: 'chore', id: newId('gad') },
    }),
  )
}

function jobRows(instance: Instance) {
  return instance.tp.panel.store.db.withTables<JobTables>().selectFrom('jobs').selectAll().execute()
}

describe('two instances on one store', () => {
  test('every job enqueued on either instance runs exactly once, and both instances run some', async () => {
    const [a, b] = await twoInstances({ concurrency: 4, pollIntervalMs: 20 })
    const pause = async () => Bun.sleep(2 + Math.random() * 10)
    a.handler = pause
    b.handler = pause
    a.tp.panel.start()
    b.tp.panel.start()
    const ids: string[] = []
    // Enqueued on both, a few at a time, so both instances claim while the other does.
    for (let round = 0; round < 10; round++)
      ids.push(...(await Promise.all([enqueue(a), enqueue(b), enqueue(a), enqueue(b)])))
    await waitFor(
      'every job to succeed',
      async () => (await jobRows(a)).every((row) => row.status === 'succeeded'),
      15_000,
    )
    const rows = await jobRows(b)
    expect(rows).toHaveLength(ids.length)
    expect(rows.every((row) => row.attempts === 1)).toBe(true)
    expect(runs.map((run) => run.jobId).sort()).toEqual([...ids].sort())
    expect(new Set(runs.map((run) => run.instance))).toEqual(new Set(['a', 'b']))
  })

  test('a job whose instance let go of it without finishing it is finished by the other once its lease ran out', async () => {
    const leaseMs = 400
    const [a, b] = await twoInstances({ leaseMs, pollIntervalMs: 20, shutdownGraceMs: 50 })
    const holding = deferred()
    // On a, the job runs on even after a stops (a handler deaf to its signal, as good as a dead instance): it is
    // abandoned, unfinished, and nobody renews its lease.
    a.handler = () => {
      holding.resolve()
      return new Promise(() => {})
    }
    a.tp.panel.start()
    const jobId = await enqueue(a)
    await holding.promise
    b.tp.panel.start()
    // While a lives it renews the lease: b polls all along and leaves the job alone.
    await Bun.sleep(leaseMs * 3)
    expect(runs).toEqual([{ instance: 'a', jobId, attempt: 1 }])
    await a.tp.panel.close()
    const [abandoned] = await jobRows(b)
    expect(abandoned).toMatchObject({ status: 'running', attempts: 1, finished_at: null })
    const done = await waitFor('b to finish the job', async () => {
      const [row] = await jobRows(b)
      return row?.status === 'succeeded' ? row : undefined
    })
    expect(done).toMatchObject({ attempts: 2, result: JSON.stringify({ ranOn: 'b' }), lease_owner: null })
    expect(runs).toEqual([
      { instance: 'a', jobId, attempt: 1 },
      { instance: 'b', jobId, attempt: 2 },
    ])
    // Not before the lease a last renewed ran out.
    expect(Date.parse(done.updated_at) - Date.parse(abandoned?.lease_until ?? '')).toBeGreaterThanOrEqual(0)
  })

  test('a job given up on a graceful stop is given back: the other instance takes it over at once, not after the lease', async () => {
    const leaseMs = 30_000
    const [a, b] = await twoInstances({ leaseMs, pollIntervalMs: 60_000, shutdownGraceMs: 50 })
    const holding = deferred()
    // On a, the job runs until a stops, and honours its signal then.
    a.handler = (job) => {
      holding.resolve()
      return new Promise((_resolve, reject) =>
        job.signal.addEventListener('abort', () => reject(job.signal.reason)),
      )
    }
    a.tp.panel.start()
    const jobId = await enqueue(a)
    await holding.promise
    b.tp.panel.start()
    const stoppedAt = Date.now()
    await a.tp.panel.close()
    const done = await waitFor(
      'b to finish the job',
      async () => {
        const [row] = await jobRows(b)
        return row?.status === 'succeeded' ? row : undefined
      },
      15_000,
    )
    expect(done).toMatchObject({ attempts: 2, result: JSON.stringify({ ranOn: 'b' }) })
    // Long before the 30 s lease, and b polls once a minute: a's notice woke it.
    expect(Date.parse(done.updated_at) - stoppedAt).toBeLessThan(5_000)
    expect(runs).toEqual([
      { instance: 'a', jobId, attempt: 1 },
      { instance: 'b', jobId, attempt: 2 },
    ])
  }, 20_000)

  test('a job enqueued on one instance is started by the other at once, though it polls once a minute', async () => {
    const [a, b] = await twoInstances({ pollIntervalMs: 60_000 })
    // a only enqueues (as the CLI would); b runs the jobs.
    b.tp.panel.start()
    for (let i = 0; i < 3; i++) {
      const jobId = await enqueue(a)
      // Far sooner than b's next poll: only the notice of a's commit can have woken it.
      await waitFor(
        `b to run job ${i + 1}`,
        () => runs.some((run) => run.jobId === jobId && run.instance === 'b'),
        5_000,
      )
    }
    expect(runs.map((run) => run.instance)).toEqual(['b', 'b', 'b'])
  })
})
