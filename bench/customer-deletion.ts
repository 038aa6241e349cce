// `bun bench/customer-deletion.ts`: how long closing a customer takes, on the standalone server over HTTP with the
// local node laying out files (as the other HTTP benches): a customer with `DELETION_SITES` (10) active sites is
// deleted, timed from `DELETE /api/v1/customers/{id}` to its `customer.delete` job succeeded and the customer read
// 404, `DELETION_ROUNDS` (7) times, on SQLite and then PostgreSQL (`BENCH_STORE=sqlite` or `postgres` for one; the
// server at `DATABASE_URL`, default the machine's, in a database made for the run and dropped after). No pass/fail:
// the medians go into docs/performance.md.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freshDatabase } from './seed-postgres.ts'
import { percentile, staffToken, startServer } from './standalone.ts'

const sitesPerCustomer = Number(process.env.DELETION_SITES ?? '10')
const rounds = Number(process.env.DELETION_ROUNDS ?? '7')
const stores = process.env.BENCH_STORE ? [process.env.BENCH_STORE] : ['sqlite', 'postgres']
const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

interface Round {
  /** DELETE sent to the job read `succeeded`. */
  readonly toJobMs: number
  /** The job's own run, from its timestamps. */
  readonly runMs: number
}

/** Deletes `rounds` customers of `sitesPerCustomer` sites each on one store; answers each round's times. */
async function measure(store: string): Promise<Round[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plinth-bench-deletion-'))
  const database = store === 'postgres' ? await freshDatabase(serverUrl, 'plinth_bench_deletion') : null
  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    ...(database ? { DATABASE_URL: database.url } : {}),
  }
  const server = await startServer(env)
  try {
    const token = await staffToken(env)
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const call = async <T>(
      method: string,
      path: string,
      body?: unknown,
    ): Promise<{ status: number; body: T }> => {
      const response = await fetch(`${server.url}/api/v1${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: response.status, body: (await response.json()) as T }
    }
    const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const answer = await call<T>(method, path, body)
      if (answer.status >= 300)
        throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`)
      return answer.body
    }
    const results: Round[] = []
    for (let round = 0; round < rounds; round++) {
      const customer = await ok<{ id: string }>('POST', '/customers', { name: `Closing ${round}` })
      const sites = await Promise.all(
        Array.from({ length: sitesPerCustomer }, (_, i) =>
          ok<{ id: string }>('POST', '/sites', {
            customerId: customer.id,
            name: `Site ${i}`,
            type: 'wordpress',
            domain: `r${round}-s${i}-${crypto.randomUUID().slice(0, 8)}.example.com`,
          }),
        ),
      )
      for (const site of sites)
        for (;;) {
          const now = await ok<{ status: string }>('GET', `/sites/${site.id}`)
          if (now.status === 'active') break
          if (now.status !== 'provisioning') throw new Error(`site ${site.id} became ${now.status}`)
          await Bun.sleep(5)
        }
      const started = performance.now()
      const deleting = await ok<{ jobId: string }>('DELETE', `/customers/${customer.id}`)
      let job: { status: string; startedAt: string; finishedAt: string }
      for (;;) {
        job = await ok('GET', `/jobs/${deleting.jobId}`)
        if (job.status !== 'queued' && job.status !== 'running') break
        await Bun.sleep(2)
      }
      const toJobMs = performance.now() - started
      if (job.status !== 'succeeded') throw new Error(`the deletion job ${deleting.jobId} is ${job.status}`)
      if ((await call('GET', `/customers/${customer.id}`)).status !== 404)
        throw new Error('the customer is still there')
      results.push({ toJobMs, runMs: Date.parse(job.finishedAt) - Date.parse(job.startedAt) })
    }
    return results
  } finally {
    server.process.kill('SIGTERM')
    await server.process.exited
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

console.log(
  `customer deletion: ${sitesPerCustomer} active sites each, ${rounds} rounds, local node laying out files\n`,
)
for (const store of stores) {
  const results = await measure(store)
  const ms = (values: number[]) =>
    `median ${percentile(values, 0.5).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`
  console.log(`${store}:`)
  console.log(`  DELETE to job succeeded   ${ms(results.map((r) => r.toJobMs))}`)
  console.log(`  the job's own run         ${ms(results.map((r) => r.runMs))}`)
}
