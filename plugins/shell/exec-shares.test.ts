// Fair shares of the exec pool, from outside: one customer flooding commands through the API (more than the pool
// runs at once, each taking seconds) holds another customer's command for about one command's time, not for its
// whole backlog, and staff's suspension of a site goes ahead of both. Real commands in real sites on the local node.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  freePort,
  type RunningServer,
  removeNodeLeftovers,
  servePanel,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { shellPlugin } from './index.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-exec-shares-'))
chmodSync(folder, 0o711)
const sitesDir = join(folder, 'sites')
let tp: TestPanel
let server: RunningServer
let base: string
let token: string

/** How many commands the pool runs at once, and how long each of the flood's takes. */
const concurrency = 2
const floodSeconds = 3

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would.
type Json = Record<string, any>

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      sitesPlugin(),
      shellPlugin({ execConcurrency: concurrency }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  server = servePanel(tp.panel, {
    hostname: '127.0.0.1',
    port: 0,
    log: { debug() {}, info() {}, warn() {}, error() {} } as never,
  })
  base = server.url.toString().replace(/\/$/, '')
  tp.panel.start()
  token = await tp.token()
}, 60_000)

afterAll(async () => {
  await server?.stop()
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

async function call(method: string, path: string, body?: unknown, as = token): Promise<Response> {
  return fetch(`${base}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${as}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}
async function json(response: Response, status: number): Promise<Json> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return JSON.parse(text) as Json
}
async function until<T>(what: string, probe: () => Promise<T | null>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const got = await probe()
    if (got !== null) return got
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}
async function newSite(customerId: string): Promise<Json> {
  const domain = `shares-${crypto.randomUUID().slice(0, 8)}.example.test`
  const site = await json(
    await call('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
    201,
  )
  return until(`site ${domain}`, async () => {
    const now = await json(await call('GET', `/sites/${site.id}`), 200)
    if (now.status === 'failed') throw new Error(`provisioning failed: ${JSON.stringify(now)}`)
    return now.status === 'active' ? now : null
  })
}
/** The job `jobId` once it ended. */
function ended(jobId: string, as = token): Promise<Json> {
  return until(`the job ${jobId}`, async () => {
    const job = await json(await call('GET', `/jobs/${jobId}`, undefined, as), 200)
    return job.status === 'succeeded' || job.status === 'failed' ? job : null
  })
}

test('a customer’s flood of commands holds another’s for about one command, and a suspension for none', async () => {
  const [a, b] = await Promise.all(
    ['Flood Co', 'Quiet Co'].map(
      async (name) => (await json(await call('POST', '/customers', { name }), 201)).id,
    ),
  )
  const [siteA, siteB, siteC] = await Promise.all([newSite(a), newSite(b), newSite(b)])
  const asA = await tp.token({ customerId: a })
  const asB = await tp.token({ customerId: b })

  // A's backlog: five rounds of the pool, each command taking seconds.
  const flood = await Promise.all(
    Array.from({ length: concurrency * 5 }, async () =>
      json(
        await call('POST', `/sites/${siteA.id}/exec`, { argv: ['sleep', String(floodSeconds)] }, asA),
        202,
      ),
    ),
  )
  await until('A’s commands to run', async () => {
    const job = await json(await call('GET', `/jobs/${flood[0]?.jobId}`, undefined, asA), 200)
    return job.status === 'running' ? job : null
  })

  const asked = Date.now()
  const quiet = await json(
    await call('POST', `/sites/${siteB.id}/exec`, { argv: ['echo', 'hello'] }, asB),
    202,
  )
  const suspension = await json(await call('POST', `/sites/${siteC.id}/suspend`), 200)
  const [quietJob, suspended] = await Promise.all([ended(quiet.jobId, asB), ended(suspension.jobId)])
  const quietMs = Date.parse(quietJob.finishedAt ?? quietJob.updatedAt) - asked
  const suspendedMs = Date.parse(suspended.finishedAt ?? suspended.updatedAt) - asked
  console.log(`B's command ended ${quietMs} ms after it was asked, the suspension ${suspendedMs} ms`)
  expect(quietJob.status).toBe('succeeded')
  expect(quietJob.result.stdout).toBe('hello\n')
  expect(suspended.status).toBe('succeeded')
  // One command's time (plus the pool's turn), far from A's backlog of five rounds.
  expect(quietMs).toBeLessThan(floodSeconds * 1000 * 2.5)
  expect(suspendedMs).toBeLessThan(floodSeconds * 1000)
  for (const job of flood) await ended(job.jobId, asA)
}, 180_000)
