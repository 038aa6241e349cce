// What the request log and the metrics cost per request, in process (docs/performance.md quotes it):
// `bun hosts/observability-cost.ts`. Two measures, best of several alternating rounds each:
// 1. 100,000 request records through nothing, through a prom-client histogram shaped as the panel's request series
//    (three labels, thirteen buckets), through pino's request line to /dev/null (the standard host's logger and
//    options), and through both;
// 2. `panel.handle` of `GET /healthz` and of `GET /api/v1/me` (a token, the caller) with neither, with the metrics
//    only (the kernel's default) and with both, against the same panel setup.

import pino from 'pino'
import { Histogram, Registry } from 'prom-client'
import { createPanel, createUser, issueApiToken, openSqliteStore, type RequestRecord } from '../core/host.ts'
import { createHostLogger, requestLogObserver } from './observability.ts'

const records = 100_000
const rounds = Number(process.env.ROUNDS ?? 7)
const silent = createHostLogger({ level: 'error', destination: { write() {} } })

/** Best (lowest) µs per item of `work` over the rounds, each round run after the others of its turn. */
async function compare<N extends string>(
  names: readonly N[],
  work: (name: N) => Promise<number>,
): Promise<Map<N, number>> {
  const best = new Map(names.map((name) => [name, Number.POSITIVE_INFINITY]))
  for (let round = 0; round < rounds; round++) {
    for (const name of names)
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, await work(name)))
  }
  return best
}

function recordOf(i: number): RequestRecord {
  return {
    requestId: `req_01JD${i.toString(32).padStart(22, '0').toUpperCase()}`,
    method: i % 5 === 0 ? 'POST' : 'GET',
    route: ['/api/v1/sites/:id', '/api/v1/sites', '/api/v1/customers/:id', '/healthz'][i % 4] ?? null,
    status: i % 17 === 0 ? 404 : 200,
    durationMs: 0.3 + (i % 100) / 37,
    address: '127.0.0.1',
    userId: 'usr_01JDABCDEFGHJKMNPQRSTVWXYZ',
    tokenId: 'tok_01JDABCDEFGHJKMNPQRSTVWXYZ',
    customerId: i % 2 === 0 ? 'cus_01JDABCDEFGHJKMNPQRSTVWXYZ' : null,
  }
}

const devNull = () => pino.destination({ dest: '/dev/null', sync: false, maxLength: 16 * 1024 * 1024 })
const logLine = requestLogObserver(createHostLogger({ destination: devNull() }))
const requestSeries = new Histogram({
  name: 'plinth_http_request_duration_seconds',
  help: 'As the panel declares it.',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [new Registry()],
})
const observeRequest = (record: RequestRecord) =>
  requestSeries.observe(
    { method: record.method, route: record.route ?? 'unmatched', status: record.status },
    record.durationMs / 1000,
  )
const observers: Record<string, (record: RequestRecord) => void> = {
  nothing: () => {},
  'metrics (prom-client histogram)': observeRequest,
  'log line (pino, /dev/null)': logLine,
  'metrics and log line': (record) => {
    observeRequest(record)
    logLine(record)
  },
}
const prepared = Array.from({ length: records }, (_, i) => recordOf(i))
const micro = await compare(Object.keys(observers), async (name) => {
  const observe = observers[name] ?? (() => {})
  const started = performance.now()
  for (const record of prepared) observe(record)
  const micros = ((performance.now() - started) * 1000) / records
  // Let the asynchronous destination drain between rounds, as a server's idle moments do.
  await new Promise((resolve) => setTimeout(resolve, 20))
  return micros
})
console.log(`${records.toLocaleString('en')} request records, best of ${rounds} rounds (µs a record):`)
for (const [name, micros] of micro) console.log(`  ${name.padEnd(34)} ${micros.toFixed(2)}`)

/** A panel with no plugins, a staff user and a token, observed as `setup` says. */
async function panelWith(setup: 'neither' | 'metrics' | 'both') {
  const panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins: [],
    secret: 'cost-secret-cost-secret-cost-secret-!!',
    logger: silent,
    rateLimits: { perMinute: 1e9 },
    metrics: setup === 'neither' ? false : {},
    ...(setup === 'both'
      ? { observe: requestLogObserver(createHostLogger({ destination: devNull() })) }
      : {}),
  })
  const user = await createUser(panel.store.db, {
    email: 'cost@example.test',
    password: 'correct horse battery',
    staffRole: 'platform',
  })
  const { token } = await panel.store.transaction((trx) =>
    issueApiToken(
      trx,
      user,
      { name: 'cost', scopes: ['*'], customerId: null, expiresAt: null },
      { defaultDays: 90, maxDays: 365 },
    ),
  )
  return { panel, token }
}

const setups = ['neither', 'metrics', 'both'] as const
const panels = new Map(
  await Promise.all(setups.map(async (setup) => [setup, await panelWith(setup)] as const)),
)
const requests = 20_000
for (const path of ['/healthz', '/api/v1/me']) {
  const results = await compare(setups, async (setup) => {
    const entry = panels.get(setup)
    if (!entry) throw new Error(setup)
    const headers = { authorization: `Bearer ${entry.token}` }
    const started = performance.now()
    for (let i = 0; i < requests; i++) {
      const response = await entry.panel.handle(new Request(`http://localhost${path}`, { headers }), {
        address: '127.0.0.1',
      })
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
      await response.arrayBuffer()
    }
    const micros = ((performance.now() - started) * 1000) / requests
    await new Promise((resolve) => setTimeout(resolve, 20))
    return micros
  })
  console.log(
    `panel.handle GET ${path}, ${requests.toLocaleString('en')} requests, best of ${rounds} (µs a request):`,
  )
  const base = results.get('neither') ?? 0
  for (const [setup, micros] of results)
    console.log(`  ${setup.padEnd(34)} ${micros.toFixed(2)}  (+${(micros - base).toFixed(2)})`)
}
for (const { panel } of panels.values()) await panel.close()
