// A site's page cache through the API, without a serving node (the local node lays out files only): defaults, a
// change carried by a `site.update` job and read back by the serving part, every bad value refused with its code and
// nothing stored lost, a purge recorded, a static site refused, scopes, and another customer's site 404.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { definePlugin } from '../../core/index.ts'
import { createTestPanel, expectProblem, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { siteTypes } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { SiteCache } from './contract.ts'
import { cachePlugin } from './index.ts'
import { cacheRecordPart } from './record-part.ts'
import { cacheServingPart } from './serving-part.ts'

/** A site type served by nginx alone, as the `static` type is. */
const flatType = definePlugin({
  name: 'flat-sites',
  version: '1.0.0',
  description: 'A type of site served without PHP.',
  requires: ['sites'],
  setup(context) {
    context
      .extensionPoint(siteTypes)
      .add({ name: 'flat', description: 'Files only.', serving: { php: false } })
  },
})

const folder = mkdtempSync(join(tmpdir(), 'plinth-cache-api-'))
let tp: TestPanel
let token: string
let customerId: string
let siteId: string
let flatSiteId: string
beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: folder }),
      sitesPlugin(),
      flatType,
      cachePlugin(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  customerId = (await json<{ id: string }>(await call('POST', '/customers', { name: 'Cache Co' }), 201)).id
  siteId = await activeSite('wordpress', 'cached.example.test')
  flatSiteId = await activeSite('flat', 'flat.example.test')
})
afterAll(async () => {
  await tp?.panel.close()
  rmSync(folder, { recursive: true, force: true })
})

const call = (method: string, path: string, body?: unknown, as = token) =>
  tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })
async function json<T>(response: Response, status: number): Promise<T> {
  expect(response.status).toBe(status)
  return (await response.json()) as T
}
async function activeSite(type: string, domain: string): Promise<string> {
  const site = await json<{ id: string }>(
    await call('POST', '/sites', { customerId, name: domain, type, domain }),
    201,
  )
  await waitFor(`site ${domain}`, async () => {
    const now = await json<{ status: string }>(await call('GET', `/sites/${site.id}`), 200)
    if (now.status !== 'active') await Bun.sleep(20)
    return now.status === 'active' || null
  })
  return site.id
}
const auditOf = async (subject: string) =>
  (
    await json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await call('GET', `/audit?subject=${subject}`),
      200,
    )
  ).items
const siteRef = (id: string) => ({
  id,
  customerId,
  status: 'active' as const,
  domain: 'cached.example.test',
  handle: 'x',
  nodeId: null,
  type: 'wordpress',
  createdAt: '',
})

describe('a site’s page cache', () => {
  test('is off with an hour’s TTL until changed, with the built-in bypasses listed', async () => {
    const cache = await json<SiteCache>(await call('GET', `/sites/${siteId}/cache`), 200)
    expect(cache).toMatchObject({
      siteId,
      customerId,
      enabled: false,
      ttlSeconds: 3600,
      bypassCookies: [],
      jobId: null,
    })
    expect(cache.builtInBypassCookies).toContain('wordpress_logged_in_*')
    expect(cache.builtInExcludedPaths).toContain('/wp-admin/')
    expect(await cacheServingPart.read(tp.panel.store.db, siteRef(siteId))).toEqual({})
  })

  test('a change is stored, audited, carried by a site.update job and read by the serving part', async () => {
    const changed = await json<SiteCache>(
      await call('PATCH', `/sites/${siteId}/cache`, {
        enabled: true,
        ttlSeconds: 120,
        bypassCookies: ['my_session', 'cart_*', 'my_session'],
        excludedPaths: ['/cart/'],
      }),
      200,
    )
    expect(changed).toMatchObject({
      enabled: true,
      ttlSeconds: 120,
      bypassCookies: ['my_session', 'cart_*'],
      excludedPaths: ['/cart/'],
    })
    expect(changed.jobId).toMatch(/^job_/)
    await waitFor('the update job', async () => {
      const job = await json<{ status: string }>(await call('GET', `/jobs/${changed.jobId}`), 200)
      if (job.status !== 'succeeded') await Bun.sleep(20)
      return job.status === 'succeeded' || null
    })
    expect(await cacheServingPart.read(tp.panel.store.db, siteRef(siteId))).toEqual({
      cache: {
        enabled: true,
        ttlSeconds: 120,
        bypassCookies: ['my_session', 'cart_*'],
        excludedPaths: ['/cart/'],
      },
    })
    // Backups keep it in the site's record.
    expect(await cacheRecordPart.read(tp.panel.store.db, siteId)).toEqual({
      enabled: true,
      ttlSeconds: 120,
      bypassCookies: ['my_session', 'cart_*'],
      excludedPaths: ['/cart/'],
    })
    const entry = (await auditOf(siteId)).find((item) => item.action === 'cache.update')
    expect(entry?.details).toMatchObject({
      enabled: { from: false, to: true },
      ttlSeconds: { from: 3600, to: 120 },
    })
    // The same again changes nothing, and records nothing.
    const again = await json<SiteCache>(
      await call('PATCH', `/sites/${siteId}/cache`, { ttlSeconds: 120 }),
      200,
    )
    expect(again.jobId).toBe(changed.jobId)
    expect((await auditOf(siteId)).filter((item) => item.action === 'cache.update')).toHaveLength(1)
  })

  test('bad values are refused with their codes, nothing stored lost', async () => {
    const before = await json<SiteCache>(await call('GET', `/sites/${siteId}/cache`), 200)
    const refusals: [unknown, string, string][] = [
      [{ ttlSeconds: 0 }, 'body.ttlSeconds', 'out_of_range'],
      [{ ttlSeconds: 2_592_001 }, 'body.ttlSeconds', 'out_of_range'],
      [{ bypassCookies: ['ok', 'a"; return 200 "x'] }, 'body.bypassCookies.1', 'invalid_bypass_cookie'],
      [{ bypassCookies: ['a*b'] }, 'body.bypassCookies.0', 'invalid_bypass_cookie'],
      [{ bypassCookies: ['é'] }, 'body.bypassCookies.0', 'invalid_bypass_cookie'],
      [{ excludedPaths: ['cart/'] }, 'body.excludedPaths.0', 'invalid_cache_path'],
      [{ excludedPaths: ['/a$b'] }, 'body.excludedPaths.0', 'invalid_cache_path'],
      [{ excludedPaths: ['/a\n}'] }, 'body.excludedPaths.0', 'invalid_cache_path'],
      [{ excludedPaths: [`/${'a'.repeat(300)}`] }, 'body.excludedPaths.0', 'too_long'],
    ]
    for (const [body, location, code] of refusals) {
      const problem = await json<{ errors: unknown[] }>(
        await call('PATCH', `/sites/${siteId}/cache`, body),
        422,
      )
      expect(problem.errors).toContainEqual(expect.objectContaining({ location, code }))
    }
    const purgeRefusal = await expectProblem(
      await call('POST', `/sites/${siteId}/cache/purge`, { paths: ['/about/?x=1'] }),
      422,
      'invalid_cache_path',
    )
    expect(purgeRefusal.errors).toContainEqual(
      expect.objectContaining({ location: 'body.paths.0', code: 'invalid_cache_path' }),
    )
    expect(await json<SiteCache>(await call('GET', `/sites/${siteId}/cache`), 200)).toEqual(before)
  })

  test('a purge is done on the node and recorded', async () => {
    const all = await json<Record<string, unknown>>(
      await call('POST', `/sites/${siteId}/cache/purge`, {}),
      200,
    )
    expect(all).toEqual({ siteId, customerId, paths: null, removed: 0 })
    const some = await json<{ paths: string[] | null }>(
      await call('POST', `/sites/${siteId}/cache/purge`, { paths: ['/about/', '/about/', '/feed/'] }),
      200,
    )
    expect(some.paths).toEqual(['/about/', '/feed/'])
    const purges = (await auditOf(siteId)).filter((item) => item.action === 'cache.purge')
    expect(purges.map((item) => item.details.paths)).toEqual(
      expect.arrayContaining([null, ['/about/', '/feed/']]),
    )
  })

  test('a site without PHP has no page cache', async () => {
    expect((await json<SiteCache>(await call('GET', `/sites/${flatSiteId}/cache`), 200)).enabled).toBe(false)
    await expectProblem(
      await call('PATCH', `/sites/${flatSiteId}/cache`, { enabled: true }),
      409,
      'cache_needs_php',
    )
    await expectProblem(await call('POST', `/sites/${flatSiteId}/cache/purge`, {}), 409, 'cache_needs_php')
  })

  test('scopes: reading needs cache:read, changing and purging cache:manage', async () => {
    const reader = await tp.token({ scopes: ['cache:read'] })
    await json(await call('GET', `/sites/${siteId}/cache`, undefined, reader), 200)
    expect((await call('PATCH', `/sites/${siteId}/cache`, { enabled: false }, reader)).status).toBe(403)
    expect((await call('POST', `/sites/${siteId}/cache/purge`, {}, reader)).status).toBe(403)
  })

  test('another customer’s site is 404 for every operation', async () => {
    const strangerId = (
      await json<{ id: string }>(await call('POST', '/customers', { name: 'Stranger Co' }), 201)
    ).id
    const stranger = await tp.token({ customerId: strangerId })
    await expectProblem(await call('GET', `/sites/${siteId}/cache`, undefined, stranger), 404, 'not_found')
    await expectProblem(
      await call('PATCH', `/sites/${siteId}/cache`, { enabled: false }, stranger),
      404,
      'not_found',
    )
    await expectProblem(await call('POST', `/sites/${siteId}/cache/purge`, {}, stranger), 404, 'not_found')
    expect((await json<SiteCache>(await call('GET', `/sites/${siteId}/cache`), 200)).enabled).toBe(true)
  })
})
