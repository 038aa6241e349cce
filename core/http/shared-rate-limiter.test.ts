// Rate limits with several instances on one store: one allowance across all of them on PostgreSQL. On SQLite, whose
// documented deployment is one process per store, each panel keeps its count in memory: these tests pin both.

import { afterEach, describe, expect, test } from 'bun:test'
import { jsonLinesLogger } from '../panel/logger.ts'
import type { TestPanel } from '../testing/create-test-panel.ts'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { createTestInstances } from '../testing/instances.ts'
import { expectProblem } from '../testing/problems.ts'
import { testEngine } from '../testing/test-store.ts'
import { rateLimiterFor } from './shared-rate-limiter.ts'

const shared = testEngine === 'postgres'
let open: TestPanel[] = []
afterEach(async () => {
  for (const instance of open) await instance.panel.close()
  open = []
})

/** Two instances on one fresh store with these rate limits. */
async function twoInstances(rateLimits: { perMinute?: number; loginPerMinute?: number }) {
  open = await createTestInstances({ plugins: [], rateLimits })
  return open as [TestPanel, TestPanel]
}

const me = (instance: TestPanel, token: string) => instance.request('GET', '/api/v1/me', { token })

describe('several instances on one store', () => {
  test('a token’s per-minute limit is one limit: the (limit+1)th request is 429 whichever instance gets it', async () => {
    const [a, b] = await twoInstances({ perMinute: 4 })
    const token = await a.token()
    const answers: Response[] = []
    for (let i = 0; i < 10; i++) answers.push(await me(i % 2 === 0 ? a : b, token))
    const statuses = answers.map((answer) => answer.status)
    // On SQLite each instance grants its own 4 of its 5 requests.
    expect(statuses).toEqual(
      shared ? [200, 200, 200, 200, ...Array(6).fill(429)] : [...Array(8).fill(200), 429, 429],
    )
    if (shared) {
      // What is left counts down across both instances.
      expect(answers.slice(0, 4).map((answer) => answer.headers.get('ratelimit')?.split(';')[1])).toEqual([
        'r=3',
        'r=2',
        'r=1',
        'r=0',
      ])
    }
    // Refused by either instance, the refusal is the same as ever.
    for (const refused of answers.slice(-2)) {
      const body = await expectProblem(refused, 429, 'rate_limited')
      expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=4;w=60')
      expect(Number(refused.headers.get('retry-after'))).toBeWithin(1, 61)
      expect(body.retryAfter).toBe(Number(refused.headers.get('retry-after')))
    }
  })

  test('list reads, answered beside the reads that confirm their kept caller, are counted the same', async () => {
    const [a, b] = await twoInstances({ perMinute: 4 })
    const token = await a.token()
    const jobs = (instance: TestPanel) => instance.request('GET', '/api/v1/jobs', { token })
    const answers: Response[] = []
    for (let i = 0; i < 10; i++) answers.push(await jobs(i % 2 === 0 ? a : b))
    expect(answers.map((answer) => answer.status)).toEqual(
      shared ? [200, 200, 200, 200, ...Array(6).fill(429)] : [...Array(8).fill(200), 429, 429],
    )
    if (shared)
      expect(answers.slice(0, 4).map((answer) => answer.headers.get('ratelimit')?.split(';')[1])).toEqual([
        'r=3',
        'r=2',
        'r=1',
        'r=0',
      ])
    const refused = answers.at(-1) as Response
    await expectProblem(refused, 429, 'rate_limited')
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=4;w=60')
  })

  test('requests at once, spread over both instances, get exactly the allowance between them', async () => {
    const [a, b] = await twoInstances({ perMinute: 5 })
    const token = await a.token()
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => me(i % 2 === 0 ? a : b, token)))
    const granted = answers.filter((answer) => answer.status === 200).length
    expect(granted).toBe(shared ? 5 : 10)
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(16 - granted)
  })

  test('an address’s allowance (failed credentials) and its login allowance are shared too', async () => {
    const [a, b] = await twoInstances({ perMinute: 2, loginPerMinute: 2 })
    const junk = (instance: TestPanel, i: number) =>
      instance.panel.handle(
        new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer junk${i}` } }),
        { address: '203.0.113.20' },
      )
    const junkStatuses = [await junk(a, 1), await junk(b, 2), await junk(a, 3), await junk(b, 4)].map(
      (answer) => answer.status,
    )
    expect(junkStatuses).toEqual(shared ? [401, 401, 429, 429] : [401, 401, 401, 401])
    const login = (instance: TestPanel) =>
      instance.panel.handle(
        new Request('http://localhost/api/v1/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'nobody@example.test', password: 'whatever it is' }),
        }),
        { address: '203.0.113.21' },
      )
    const logins = [await login(a), await login(b), await login(a), await login(b)]
    expect(logins.map((answer) => answer.status)).toEqual(
      shared ? [401, 401, 429, 429] : [401, 401, 401, 401],
    )
    expect(logins[0]?.headers.get('ratelimit-policy')).toBe('"login";q=2;w=60')
  })
})

describe('the limiter a store gets', () => {
  const policy = { perMinute: 3, loginPerMinute: 1 }
  const log = jsonLinesLogger()
  const token = (id: string) => ({ credential: `token:${id}` })

  test('is shared through PostgreSQL and in memory on SQLite (which keeps no rate table)', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    open = [tp]
    const tables = await tp.panel.store.tables()
    expect(tables.includes('rate_windows')).toBe(shared)
    const first = rateLimiterFor(tp.panel.store, policy, log)
    const second = rateLimiterFor(tp.panel.store, policy, log)
    const now = Date.parse('2026-11-23T10:00:00.000Z')
    await first.take(token('both'), now)
    await first.take(token('both'), now)
    const third = await second.take(token('both'), now)
    expect(third?.headers.ratelimit).toBe(shared ? '"default";r=0;t=60' : '"default";r=2;t=60')
  })

  test('each key’s window opens with its first request, refuses past the allowance, and opens again a minute on', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    open = [tp]
    const limiter = rateLimiterFor(tp.panel.store, policy, log)
    const boundary = Date.parse('2026-11-23T10:01:00.000Z')
    const at = [boundary - 300, boundary - 200, boundary - 100, boundary + 100]
    const decisions = []
    for (const now of at) decisions.push(await limiter.take(token('a'), now))
    expect(decisions.map((decision) => decision?.refusal !== null)).toEqual([false, false, false, true])
    // Retry-After counts down to the end of the key's own window, not a wall-clock minute.
    expect(decisions[3]?.refusal?.headers['retry-after']).toBe('60')
    expect((await limiter.take(token('a'), boundary - 300 + 45_000))?.refusal?.headers['retry-after']).toBe(
      '15',
    )
    const reopened = await limiter.take(token('a'), boundary - 300 + 60_000)
    expect(reopened?.refusal).toBeNull()
    expect(reopened?.headers.ratelimit).toBe('"default";r=2;t=60')
    expect(await limiter.take({ address: null }, boundary)).toBeNull()
    expect(await limiter.take({ login: null }, boundary)).toBeNull()
  })

  test('once a key is refused, the rest of its window is refused without counting it in the store again', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    open = [tp]
    const limiter = rateLimiterFor(tp.panel.store, policy, log)
    const start = Date.parse('2026-11-23T10:00:00.000Z')
    const decisions = []
    for (let i = 0; i < 6; i++) decisions.push(await limiter.take(token('flood'), start + i * 10_000))
    expect(decisions.map((decision) => decision?.refusal?.headers['retry-after'] ?? null)).toEqual([
      null,
      null,
      null,
      '30',
      '20',
      '10',
    ])
    expect(decisions[5]?.headers.ratelimit).toBe('"default";r=0;t=10')
    if (shared) {
      const row = await tp.panel.store.db
        .withTables<{ rate_windows: { key: string; used: number } }>()
        .selectFrom('rate_windows')
        .select('used')
        .where('key', '=', 'token:flood')
        .executeTakeFirst()
      expect(row?.used).toBe(4)
    }
    expect((await limiter.take(token('flood'), start + 60_000))?.refusal).toBeNull()
  })

  test('closed windows are pruned from the store, open ones kept', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    open = [tp]
    const limiter = rateLimiterFor(tp.panel.store, policy, log)
    const start = Date.parse('2026-11-23T10:00:00.000Z')
    await limiter.take(token('old'), start)
    await limiter.take(token('recent'), start + 30_000)
    // The next request a minute after the last prune prunes, beside the request.
    await limiter.take(token('new'), start + 61_000)
    const keys = async () =>
      (
        await tp.panel.store.db
          .withTables<{ rate_windows: { key: string } }>()
          .selectFrom('rate_windows')
          .select('key')
          .orderBy('key')
          .execute()
      ).map((row) => row.key)
    if (shared) {
      // Pruning runs beside the request: wait for it.
      for (let i = 0; i < 100 && (await keys()).includes('token:old'); i++) await Bun.sleep(10)
      expect(await keys()).toEqual(['token:new', 'token:recent'])
    }
    // Pruned or not, a closed window counts for nothing: the key starts a whole allowance again.
    expect((await limiter.take(token('old'), start + 61_000))?.headers.ratelimit).toBe('"default";r=2;t=60')
    expect((await limiter.take(token('recent'), start + 61_000))?.headers.ratelimit).toBe(
      '"default";r=1;t=29',
    )
  })
})
