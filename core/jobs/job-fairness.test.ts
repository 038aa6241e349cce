// Fair shares between customers in a lane, black-box through a plugin's job kinds on the engine of the run: one
// customer's backlog holds another customer's job for about one job, not for the whole backlog; urgent work jumps
// the backlog and starts at once though the lane is full; the customer with the backlog still progresses; and
// two instances on one store keep it so, each job claimed once.

import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newId } from '../ids/ids.ts'
import { definePlugin, type PluginContext } from '../plugin/define-plugin.ts'
import { waitFor } from '../testing/async.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import type { JobTables } from './job-tables.ts'

/** How long each job of the lane takes. */
const jobMs = 250
/** The lane's size on each instance. */
const laneSize = 2

/** A start of a job, as the handler saw it. */
interface Start {
  readonly jobId: string
  readonly customer: string | null
  readonly instance: string
  readonly at: number
}

const starts: Start[] = []
const panels: TestPanel[] = []
/** The jobs running now, by customer. */
const runningNow = new Map<string | null, number>()

afterEach(async () => {
  for (const tp of panels.splice(0)) await tp.panel.close()
  starts.length = 0
  runningNow.clear()
})

/** An instance of an installation whose `chores` plugin runs slow work and urgent work in one lane. */
async function instance(
  name: string,
  storePath?: string,
): Promise<{ tp: TestPanel; context: PluginContext }> {
  let context: PluginContext | undefined
  const lane = { name: 'chores', concurrency: laneSize }
  const record = (job: { id: string; customerId: string | null }) =>
    starts.push({ jobId: job.id, customer: job.customerId, instance: name, at: Date.now() })
  /** Runs a job of `ms`, counted in `runningNow` meanwhile. */
  const take = async (job: { id: string; customerId: string | null }, ms: number) => {
    record(job)
    runningNow.set(job.customerId, (runningNow.get(job.customerId) ?? 0) + 1)
    await Bun.sleep(ms)
    runningNow.set(job.customerId, (runningNow.get(job.customerId) ?? 0) - 1)
    return {}
  }
  const chores = definePlugin({
    name: 'chores',
    version: '1.0.0',
    description: 'Test chores.',
    setup(given) {
      context = given
    },
    jobs: () => [
      {
        kind: 'chore.slow',
        description: 'Takes a while, as a customer’s archive does.',
        lane,
        run: (job) => take(job, jobMs),
      },
      {
        kind: 'chore.long',
        description: 'Takes four times as long.',
        lane,
        run: (job) => take(job, 4 * jobMs),
      },
      {
        kind: 'chore.suspend',
        description: 'Protects the platform, as a suspension does.',
        lane,
        priority: 'urgent',
        run: (job) => take(job, jobMs),
      },
    ],
  })
  const tp = await createKernelTestPanel({ plugins: [chores], storePath, jobs: { pollIntervalMs: 50 } })
  panels.push(tp)
  if (!context) throw new Error('The plugin was not set up')
  return { tp, context }
}

/** Enqueues `count` jobs of `kind` for `customer` in one transaction; their ids and when they committed. */
async function enqueue(
  context: PluginContext,
  customer: string | null,
  count: number,
  kind = 'chore.slow',
): Promise<{ ids: string[]; at: number }> {
  const ids = await context.transaction(async (trx) => {
    const made: string[] = []
    for (let i = 0; i < count; i++)
      made.push(
        await context.enqueueJob(trx, {
          kind,
          customerId: customer,
          subject: { type: 'chore', id: newId('gad') },
        }),
      )
    return made
  })
  return { ids, at: Date.now() }
}

const startOf = (jobId: string) => starts.find((start) => start.jobId === jobId)

/** Waits for the job to start; how long after `since` it did. */
async function delayOf(jobId: string, since: number): Promise<number> {
  const start = await waitFor(`job ${jobId} to start`, () => startOf(jobId), 20_000)
  return start.at - since
}

const customerA = 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'
const customerB = 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SBB'
const customerC = 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SCC'

describe('one lane shared by customers', () => {
  test('B’s job, queued behind A’s 50, starts within one job’s time, not after A’s backlog', async () => {
    const { tp, context } = await instance('one')
    tp.panel.start()
    await enqueue(context, customerA, 50)
    await waitFor('A’s first jobs to start', () => starts.length >= laneSize)
    const b = await enqueue(context, customerB, 1)
    const waited = await delayOf(b.ids[0] as string, b.at)
    // Before turns it waited for the 48 of A's still queued: 24 jobs' time with two workers.
    expect(waited).toBeLessThan(jobMs + 150)
    // A's work went on meanwhile, and goes on after.
    const aStarted = () => starts.filter((start) => start.customer === customerA).length
    const before = aStarted()
    await waitFor('A to progress after B', () => aStarted() >= before + 2 * laneSize, 5_000)
  }, 30_000)

  test('an urgent job, A’s or B’s, jumps the backlog and starts at once though the lane is full', async () => {
    const { tp, context } = await instance('one')
    tp.panel.start()
    await enqueue(context, customerA, 50)
    await waitFor('the lane to be full of A’s work', () => starts.length >= laneSize)
    for (const customer of [customerA, customerB]) {
      const urgent = await enqueue(context, customer, 1, 'chore.suspend')
      // The worker each lane keeps for urgent work takes it; no normal job has to end first.
      expect(await delayOf(urgent.ids[0] as string, urgent.at)).toBeLessThan(150)
      await waitFor('the urgent job to end', async () => {
        const row = await tp.panel.store.db
          .withTables<JobTables>()
          .selectFrom('jobs')
          .select('status')
          .where('id', '=', urgent.ids[0] as string)
          .executeTakeFirst()
        return row?.status === 'succeeded'
      })
    }
  }, 30_000)

  test('customers with backlogs take turns: each, the platform’s own work too, gets one job in turn', async () => {
    const { tp, context } = await instance('one')
    await enqueue(context, customerA, 12)
    await enqueue(context, customerB, 12)
    await enqueue(context, customerC, 12)
    await enqueue(context, null, 12)
    tp.panel.start()
    await waitFor('16 jobs to start', () => starts.length >= 16, 20_000)
    // In every round of four starts, each of the four had one: none, A with its head start included, gets ahead.
    const order = starts.slice(0, 16).map((start) => start.customer)
    for (let round = 0; round < 4; round++)
      expect(new Set(order.slice(round * 4, round * 4 + 4)).size).toBe(4)
  }, 30_000)

  test('A, whose jobs take four times as long as B’s, holds no more than its share of the lane while B waits', async () => {
    const { tp, context } = await instance('one')
    const a = await enqueue(context, customerA, 6, 'chore.long')
    const b = await enqueue(context, customerB, 8)
    /** How many workers A held at each start of its jobs while B still had some queued. */
    const heldByA: number[] = []
    const watch = setInterval(() => {
      const bWaiting = b.ids.some((id) => !startOf(id))
      if (bWaiting) heldByA.push(runningNow.get(customerA) ?? 0)
    }, 5)
    tp.panel.start()
    await waitFor('B’s jobs to start', () => b.ids.every((id) => startOf(id)), 20_000)
    clearInterval(watch)
    // Turns alone give A every other start, and its long jobs would take both workers: one each, as B waits.
    expect(Math.max(...heldByA)).toBe(1)
    expect(a.ids.filter((id) => startOf(id)).length).toBeGreaterThanOrEqual(1)
  }, 30_000)

  test('A, with a backlog, still progresses while others keep queuing one job after another', async () => {
    const { tp, context } = await instance('one')
    tp.panel.start()
    await enqueue(context, customerA, 30)
    await waitFor('A to start', () => starts.length >= 1)
    // B and C each queue a job whenever their last started: a steady stream that, first served, would hold A.
    const stopAt = Date.now() + jobMs * 12
    const stream = async (customer: string) => {
      while (Date.now() < stopAt) {
        const { ids } = await enqueue(context, customer, 1)
        await waitFor('the streamed job to start', () => startOf(ids[0] as string), 10_000)
      }
    }
    const aBefore = starts.filter((start) => start.customer === customerA).length
    await Promise.all([stream(customerB), stream(customerC)])
    const aDuring = starts.filter((start) => start.customer === customerA).length - aBefore
    // Twelve jobs' time on two workers is 24 starts: A, one of three customers, gets about a third of them.
    expect(aDuring).toBeGreaterThanOrEqual(5)
  }, 30_000)
})

describe('two instances on one store', () => {
  test('each job is claimed once, and B’s job still starts within one job’s time', async () => {
    const storePath = join(mkdtempSync(join(tmpdir(), 'plinth-fair-')), 'plinth.sqlite')
    const one = await instance('one', storePath)
    const two = await instance('two', storePath)
    one.tp.panel.start()
    two.tp.panel.start()
    const a = await Promise.all([enqueue(one.context, customerA, 25), enqueue(two.context, customerA, 25)])
    await waitFor('both lanes to be full', () => starts.length >= 2 * laneSize)
    const b = await enqueue(two.context, customerB, 1)
    expect(await delayOf(b.ids[0] as string, b.at)).toBeLessThan(jobMs + 150)
    const all = [...a.flatMap((made) => made.ids), ...b.ids]
    await waitFor('every job to start', () => starts.length >= all.length, 30_000)
    const rows = await one.tp.panel.store.db
      .withTables<JobTables>()
      .selectFrom('jobs')
      .select(['id', 'attempts'])
      .execute()
    await waitFor('every job to end', async () => {
      const statuses = await one.tp.panel.store.db
        .withTables<JobTables>()
        .selectFrom('jobs')
        .select('status')
        .execute()
      return statuses.every((row) => row.status === 'succeeded')
    })
    expect(starts.map((start) => start.jobId).sort()).toEqual([...all].sort())
    expect(rows.every((row) => row.attempts <= 1)).toBe(true)
    expect(new Set(starts.map((start) => start.instance))).toEqual(new Set(['one', 'two']))
  }, 60_000)
})
