// The page cache as a customer uses it, on a panel whose local node serves WordPress with this machine's nginx,
// PHP-FPM and MariaDB: a WordPress site made through the API, its cache turned on with PATCH (the site.update job
// carries it to the node: the front page's second request is a HIT), purged through the API, and turned off again
// (no HIT).

import { afterAll, beforeAll, expect, test } from 'bun:test'
import {
  requestSite as request,
  startWordPressPanel,
  type WordPressPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { SiteCache } from './contract.ts'

let wp: WordPressPanel
let siteId: string
const domain = `cached-${crypto.randomUUID().slice(0, 8)}.example.com`

beforeAll(async () => {
  wp = await startWordPressPanel({ prefix: 'plinth-cache-panel-', tag: 'cache' })
  const customer = await wp.tp.request('POST', '/api/v1/customers', {
    token: wp.token,
    body: { name: 'Cache Co' },
  })
  const customerId = ((await customer.json()) as { id: string }).id
  siteId = (await wp.newWordPressSite(customerId, 'Cached', domain)).siteId
}, 180_000)
afterAll(async () => {
  await wp?.close()
})

const call = (method: string, path: string, body?: unknown) =>
  wp.tp.request(method, `/api/v1${path}`, { token: wp.token, ...(body === undefined ? {} : { body }) })
async function xCache(): Promise<string | null> {
  const response = await request(wp.httpPort, domain, '/')
  await response.arrayBuffer()
  expect(response.status).toBe(200)
  return response.headers.get('x-cache')
}
/** Waits for `jobId` to succeed. */
const finished = (jobId: string | null) =>
  waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await (await call('GET', `/jobs/${jobId}`)).json()) as { status: string }
      if (job.status === 'failed') throw new Error(`job ${jobId} failed`)
      return job.status === 'succeeded' || null
    },
    60_000,
  )

test('a customer turns the cache on, sees a HIT, purges it and turns it off', async () => {
  expect(await xCache()).toBeNull()
  const on = (await (
    await call('PATCH', `/sites/${siteId}/cache`, { enabled: true, ttlSeconds: 300 })
  ).json()) as SiteCache
  await finished(on.jobId)
  await xCache()
  expect(await xCache()).toBe('HIT')
  const purged = (await (await call('POST', `/sites/${siteId}/cache/purge`, { paths: ['/'] })).json()) as {
    removed: number
  }
  expect(purged.removed).toBeGreaterThanOrEqual(1)
  expect(await xCache()).toBe('MISS')
  const off = (await (await call('PATCH', `/sites/${siteId}/cache`, { enabled: false })).json()) as SiteCache
  await finished(off.jobId)
  expect(await xCache()).toBeNull()
  expect(await xCache()).toBeNull()
}, 120_000)
