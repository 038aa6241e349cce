// In-process cost of `POST /api/v1/sites` with an Idempotency-Key (no HTTP, job workers not started, so the
// provisioning is not counted): CPU and wall time per create, one at a time and 16 at once, and statements and
// transactions per create. `bun bench/create-cost.ts`; guides where to look, `npm run bench` is what counts.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPanel, openSqliteStore } from '../core/host.ts'
import { benchInstallation } from './installation.ts'
import { seed } from './seed.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-create-cost-'))
try {
  const seeded = await seed(dataDir, { customers: 1_000, sites: 10_000, bigCustomerSites: 2_000 })
  const store = openSqliteStore({ path: join(dataDir, 'plinth.sqlite') })
  const panel = await createPanel({
    store,
    ...(await benchInstallation(dataDir)),
    secret: seeded.secret,
    rateLimits: { perMinute: 1_000_000_000 },
  })
  let statements = 0
  let transactions = 0
  store.observeStatements((sql) => {
    statements += 1
    if (/^begin/i.test(sql)) transactions += 1
  })
  let serial = 0
  const create = async () => {
    serial += 1
    const response = await panel.handle(
      new Request('http://localhost/api/v1/sites', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${seeded.staffToken}`,
          'content-type': 'application/json',
          'idempotency-key': `k-${serial}`,
        },
        body: JSON.stringify({
          customerId: seeded.bigCustomerId,
          name: `Bench ${serial}`,
          type: 'wordpress',
          domain: `c${serial}.create.example`,
        }),
      }),
      { address: '127.0.0.1' },
    )
    if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`)
    await response.arrayBuffer()
  }
  const round = async (count: number, parallel: number) => {
    const cpu = process.cpuUsage()
    const started = performance.now()
    for (let done = 0; done < count; done += parallel)
      await Promise.all(Array.from({ length: parallel }, () => create()))
    const used = process.cpuUsage(cpu)
    return {
      wall: ((performance.now() - started) / count) * 1000,
      cpu: (used.user + used.system) / count,
    }
  }
  await round(200, 1)
  statements = 0
  transactions = 0
  await round(100, 1)
  console.log(
    `statements a create ${(statements / 100).toFixed(1)}, transactions ${(transactions / 100).toFixed(1)}`,
  )
  const results: Record<string, { wall: number; cpu: number }[]> = { one: [], sixteen: [] }
  for (let r = 0; r < Number(process.env.ROUNDS ?? 5); r++) {
    results.one?.push(await round(500, 1))
    results.sixteen?.push(await round(512, 16))
  }
  const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
  for (const [name, runs] of Object.entries(results))
    console.log(
      `${name.padEnd(8)} wall ${median(runs.map((r) => r.wall)).toFixed(0)} µs a create, CPU ${median(runs.map((r) => r.cpu)).toFixed(0)} µs`,
    )
  await panel.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
