// What a request asks of PostgreSQL, counted exactly in process (`panel.handle` on the bench database, every
// statement seen through the store): statements and transactions of a list page, usage and a create; how many
// transactions of concurrent creates for one customer PostgreSQL refused to serialize (the kernel runs them again);
// and what provisioning a site takes. Runs before the servers start, so no other instance takes part.

import postgres from 'postgres'
import { createPanel, openPostgresStore } from '../core/host.ts'
import { benchInstallation } from './installation.ts'
import type { Seeded } from './seed-shape.ts'

/** Statements seen, by kind. */
interface Counted {
  readonly statements: number
  readonly transactions: number
  readonly failed: number
  readonly rateLimit: number
}

/** Prints what each hot request asks of the database at `url`, with the panel's DATA_DIR `dataDir`. */
export async function printStatementCounts(url: string, seeded: Seeded): Promise<void> {
  const store = openPostgresStore({ url })
  const panel = await createPanel({
    store,
    ...(await benchInstallation(seeded.dataDir)),
    secret: seeded.secret,
    rateLimits: { perMinute: 1_000_000_000 },
  })
  let seen: string[] = []
  store.observeStatements((sql) => seen.push(sql.trimStart().toLowerCase()))
  const count = async (work: () => Promise<unknown>): Promise<Counted> => {
    seen = []
    await work()
    const starts = seen.filter((sql) => sql.startsWith('start transaction') || sql.startsWith('begin')).length
    const commits = seen.filter((sql) => sql === 'commit').length
    return {
      // Statements of the work itself; a transaction's start and commit are not counted as statements.
      statements: seen.filter((sql) => !sql.startsWith('start transaction') && sql !== 'commit').length,
      transactions: starts,
      failed: starts - commits,
      rateLimit: seen.filter((sql) => sql.startsWith('insert into rate_windows')).length,
    }
  }
  let n = 0
  const request = async (path: string, token: string, create = false) => {
    n++
    const body = { customerId: seeded.bigCustomerId, name: `Counted ${n}`, type: 'wordpress' }
    const response = await panel.handle(
      new Request(`http://localhost${path}`, {
        method: create ? 'POST' : 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          ...(create ? { 'content-type': 'application/json', 'idempotency-key': `counted-${n}` } : {}),
        },
        ...(create ? { body: JSON.stringify({ ...body, domain: `counted-${n}.bench.example` }) } : {}),
      }),
      { address: '127.0.0.1' },
    )
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    await response.arrayBuffer()
  }
  const list = () => request('/api/v1/sites', seeded.limitedToken)
  const usage = () => request('/api/v1/usage', seeded.staffToken)
  const create = () => request('/api/v1/sites', seeded.staffToken, true)
  const line = (name: string, counted: Counted, per = 1) =>
    `  ${name.padEnd(44)} ${(counted.statements / per).toFixed(1).padStart(5)} statements, ${(counted.transactions / per).toFixed(1)} transactions${counted.rateLimit > 0 ? ` (${(counted.rateLimit / per).toFixed(0)} the shared rate limit's)` : ''}${counted.failed > 0 ? `, ${(counted.failed / per).toFixed(2)} refused and run again` : ''}`
  try {
    // Kept callers, prepared statements, the JIT: what the measured requests find.
    for (let i = 0; i < 20; i++) await Promise.all([list(), usage(), create()])
    console.log('what a request asks of PostgreSQL (counted in process, one at a time unless said):')
    console.log(line('GET /api/v1/sites', await count(list)))
    console.log(line('GET /api/v1/usage', await count(usage)))
    console.log(line('POST /api/v1/sites', await count(create)))
    const creates = 200
    const concurrent = await count(async () => {
      let next = 0
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next++ < creates) await create()
        }),
      )
    })
    console.log(line('POST /api/v1/sites, 4 at once, one customer', concurrent, creates))
    // Provisioning the sites made above (and in the warm-up): this panel's job workers alone, a poll included.
    const jobs = postgres(url, { max: 1, onnotice: () => {} })
    const pending = async () =>
      (
        await jobs<{ n: number }[]>`select count(*)::int as n from jobs where status in ('queued', 'running')`
      )[0]?.n ?? 0
    const sites = await pending()
    const provisioning = await count(async () => {
      panel.start()
      while ((await pending()) > 0) await Bun.sleep(50)
    })
    await jobs.end()
    console.log(line('provisioning a site (its job, polls included)', provisioning, sites))
    console.log()
  } finally {
    await panel.close()
  }
}
