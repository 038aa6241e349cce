// What the rate windows shared through PostgreSQL cost per request, in process (docs/performance.md quotes it):
// `bun bench/rate-limit-cost.ts` (DATABASE_URL, default the machine's test server). Two panels on one PostgreSQL
// schema answer `GET /api/v1/me` with a token through `panel.handle`: one with the shared limiter (what PostgreSQL
// gets), one with the in-memory limiter (what SQLite gets). Rounds alternate between them; the median round is
// reported: wall time, this process's CPU and the PostgreSQL server's CPU per request, one request at a time and
// 16 at once (one token, and 16 tokens). Then the counting statement alone on one connection, beside `select 1` and
// the same statement on a logged table; and one failed-login attempt (the shared throttle).

import postgres from 'postgres'
import { defaultLoginThrottle } from '../core/auth/login-throttle.ts'
import { createPanel, createUser, issueApiToken, jsonLinesLogger, openPostgresStore } from '../core/host.ts'
import { countSql } from '../core/http/shared-rate-limiter.ts'
import { createSharedLoginThrottle } from '../core/identity/shared-login-throttle.ts'
import type { Store } from '../core/store/store.ts'

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const rounds = Number(process.env.ROUNDS ?? 9)
const sequential = Number(process.env.REQUESTS ?? 3_000)
const concurrent = sequential * 3
const schema = `bench_rate_${process.pid}`
const admin = postgres(url, { max: 1, onnotice: () => {} })
await admin.unsafe(`create schema "${schema}"`)

/**
 * The same store, saying it is SQLite: createPanel then picks the in-memory limiter and login throttle, which is
 * all `dialect` decides (queries ask the query builder's adapter which engine they run on, not the store).
 */
const inMemoryOn = (store: Store): Store =>
  new Proxy(store, { get: (target, name) => (name === 'dialect' ? 'sqlite' : Reflect.get(target, name)) })

const clockTicks = 100
/** CPU time in µs of every process of the PostgreSQL server on this machine (0 when it runs elsewhere). */
async function serverCpuMicros(): Promise<number> {
  let ticks = 0
  for (const pid of (await Bun.$`pgrep -x postgres`.nothrow().text()).split('\n').filter(Boolean)) {
    const stat = await Bun.file(`/proc/${pid}/stat`)
      .text()
      .catch(() => '')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0)
  }
  return (ticks * 1_000_000) / clockTicks
}

const options = {
  plugins: [],
  secret: 'rate-cost-secret-rate-cost-secret-!!',
  logger: jsonLinesLogger({ level: 'error' }),
  rateLimits: { perMinute: 1e9 },
  metrics: false as const,
}
const open = () => openPostgresStore({ url, schema, poolSize: 10 })
const shared = await createPanel({ ...options, store: open() })
const inMemory = await createPanel({ ...options, store: inMemoryOn(open()) })
const user = await createUser(shared.store.db, {
  email: 'cost@example.test',
  password: 'correct horse battery',
  staffRole: 'platform',
})
const tokens = await Promise.all(
  Array.from({ length: 16 }, async (_, i) => {
    const issued = await shared.store.transaction((trx) =>
      issueApiToken(
        trx,
        user,
        { name: `cost ${i}`, scopes: ['*'], customerId: null, expiresAt: null },
        { defaultDays: 90, maxDays: 365 },
      ),
    )
    return { authorization: `Bearer ${issued.token}` }
  }),
)

type Panel = typeof shared
const me = async (panel: Panel, headers: Record<string, string>) => {
  const response = await panel.handle(new Request('http://localhost/api/v1/me', { headers }), {
    address: '127.0.0.1',
  })
  if (response.status !== 200) throw new Error(`GET /me: ${response.status} ${await response.text()}`)
  await response.arrayBuffer()
}

/** One round: `count` requests, `inFlight` at a time, each worker with its own token or all with the first. */
async function round(panel: Panel, count: number, inFlight: number, ownTokens: boolean) {
  const cpu = process.cpuUsage()
  const server = await serverCpuMicros()
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      const headers = (ownTokens ? tokens[worker] : tokens[0]) as Record<string, string>
      while (next++ < count) await me(panel, headers)
    }),
  )
  const wall = (performance.now() - started) * 1000
  const used = process.cpuUsage(cpu)
  return {
    wall: wall / count,
    cpu: (used.user + used.system) / count,
    server: ((await serverCpuMicros()) - server) / count,
  }
}

type Run = Awaited<ReturnType<typeof round>>
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const cases = [
  { name: 'one at a time', count: sequential, inFlight: 1, ownTokens: false },
  { name: '16 at once, one token', count: concurrent, inFlight: 16, ownTokens: false },
  { name: '16 at once, 16 tokens', count: concurrent, inFlight: 16, ownTokens: true },
]
try {
  // Warm both: the caller cache, prepared statements and the JIT.
  for (const panel of [shared, inMemory]) await round(panel, 2_000, 16, true)
  console.log(`GET /api/v1/me through panel.handle on PostgreSQL, median of ${rounds} alternating rounds`)
  console.log('µs a request: wall | this process CPU | PostgreSQL CPU')
  for (const { name, count, inFlight, ownTokens } of cases) {
    const results: { shared: Run[]; inMemory: Run[] } = { shared: [], inMemory: [] }
    for (let i = 0; i < rounds; i++) {
      results.shared.push(await round(shared, count, inFlight, ownTokens))
      results.inMemory.push(await round(inMemory, count, inFlight, ownTokens))
    }
    const line = (label: string, runs: Run[]) =>
      `  ${label.padEnd(10)} ${median(runs.map((run) => run.wall)).toFixed(1)} | ${median(
        runs.map((run) => run.cpu),
      ).toFixed(1)} | ${median(runs.map((run) => run.server)).toFixed(1)}`
    console.log(`${name} (${count.toLocaleString('en')} requests a round):`)
    console.log(line('shared', results.shared))
    console.log(line('in memory', results.inMemory))
  }

  // The statement alone, prepared, on one connection of its own: what PostgreSQL and the driver charge for it.
  await admin.unsafe(`create table "${schema}".logged_windows (like "${schema}".rate_windows including all)`)
  const one = postgres(url, { max: 1, onnotice: () => {}, connection: { search_path: schema } })
  const statements: [string, () => Promise<unknown>][] = [
    ['select 1', () => one.unsafe('select 1', [], { prepare: true })],
    ['the limiter’s upsert', () => one.unsafe(countSql, ['token:alone', null, 60_000], { prepare: true })],
    [
      'the same, logged table',
      () =>
        one.unsafe(countSql.replaceAll('rate_windows', 'logged_windows'), ['token:alone', null, 60_000], {
          prepare: true,
        }),
    ],
  ]
  const alone = new Map<string, { wall: number[]; server: number[] }>(
    statements.map(([name]) => [name, { wall: [], server: [] }]),
  )
  for (let i = 0; i < rounds; i++) {
    for (const [name, run] of statements) {
      const server = await serverCpuMicros()
      const started = performance.now()
      for (let n = 0; n < sequential; n++) await run()
      alone.get(name)?.wall.push(((performance.now() - started) * 1000) / sequential)
      alone.get(name)?.server.push(((await serverCpuMicros()) - server) / sequential)
    }
  }
  console.log(`One statement at a time on one connection (µs: wall | PostgreSQL CPU):`)
  for (const [name, runs] of alone)
    console.log(`  ${name.padEnd(24)} ${median(runs.wall).toFixed(1)} | ${median(runs.server).toFixed(1)}`)
  await one.end()

  // A failed-login attempt counted through PostgreSQL: a transaction locking both counters.
  const throttle = createSharedLoginThrottle(shared.store, {
    ...defaultLoginThrottle,
    perAccount: 1e9,
    perAddress: 1e9,
    perAccountAnywhere: 1e9,
  })
  const attempts: number[] = []
  for (let i = 0; i < rounds; i++) {
    const started = performance.now()
    for (let n = 0; n < 500; n++) await throttle.attempt(`user${n % 50}@example.test`, '192.0.2.1')
    attempts.push(((performance.now() - started) * 1000) / 500)
  }
  console.log(`A failed-login attempt, shared throttle: ${median(attempts).toFixed(0)} µs`)
} finally {
  await shared.close()
  await inMemory.close()
  await admin.unsafe(`drop schema "${schema}" cascade`)
  await admin.end()
}
