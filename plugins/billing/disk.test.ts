// A plan's disk shared out over its customer's sites: even shares by default while sites are limited, quotas
// required while sites are not, explicit quotas within what is left, and changes by PATCH kept in the counter.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CustomerQuota } from '../../core/index.ts'
import {
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import { billingPlugin } from './index.ts'
import { billingCalls, created, ok } from './testing/billing-calls.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-disk-'))
let tp: TestPanel
let calls: ReturnType<typeof billingCalls>
let staffToken: string

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [brandsPlugin(), customersPlugin(), nodesPlugin({ dataDir }), sitesPlugin(), billingPlugin()],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken, { dataDir })
})
afterAll(() => tp.panel.close())

/** A customer subscribed to a plan with these limits. */
async function subscribedTo(limits: Record<string, number>): Promise<string> {
  const customerId = await calls.newCustomer()
  await calls.subscribe(customerId, (await calls.newPlan(limits)).id)
  return customerId
}

async function usageOf(customerId: string): Promise<{ diskMB: number; quota: CustomerQuota }> {
  return ok(await tp.request('GET', `/api/v1/usage?customerId=${customerId}`, { token: staffToken }))
}

const diskOf = async (response: Response) => (await created<Site>(response)).limits.diskMB

describe('disk shares', () => {
  test('a limited plan’s disk is shared out: an even share by default, explicit quotas within what is left', async () => {
    const customerId = await subscribedTo({ sites: 2, diskMB: 1000 })
    expect(await diskOf(await calls.createSite(customerId))).toBe(500)
    await expectProblem(
      await calls.createSite(customerId, { limits: { diskMB: 600 } }),
      422,
      'disk_limit_reached',
    )
    await expectFieldProblem(
      await calls.createSite(customerId, { limits: { diskMB: null } }),
      422,
      'disk_quota_required',
      'body.limits.diskMB',
    )
    expect(await diskOf(await calls.createSite(customerId, { limits: { diskMB: 300 } }))).toBe(300)
    expect((await usageOf(customerId)).quota.limits.diskMB).toEqual({
      limit: 1000,
      used: 800,
      available: 200,
    })
  })

  test('three sites of a { sites: 3, diskMB: 1000 } plan get 333, 333 and 334 MB', async () => {
    const customerId = await subscribedTo({ sites: 3, diskMB: 1000 })
    const shares = []
    for (let i = 0; i < 3; i++) shares.push(await diskOf(await calls.createSite(customerId)))
    expect(shares).toEqual([333, 333, 334])
  })

  test('with sites unlimited and disk limited, a new site no longer takes all the free disk: its quota is required (422 disk_quota_required)', async () => {
    const customerId = await subscribedTo({ diskMB: 1000 })
    await expectFieldProblem(
      await calls.createSite(customerId),
      422,
      'disk_quota_required',
      'body.limits.diskMB',
    )
    expect(await diskOf(await calls.createSite(customerId, { limits: { diskMB: 250 } }))).toBe(250)
    expect(await diskOf(await calls.createSite(customerId, { limits: { diskMB: 250 } }))).toBe(250)
    expect((await usageOf(customerId)).quota.limits.diskMB).toEqual({
      limit: 1000,
      used: 500,
      available: 500,
    })
  })

  test('with disk unlimited, a site needs no quota', async () => {
    const customerId = await subscribedTo({ sites: 2 })
    expect(await diskOf(await calls.createSite(customerId))).toBeNull()
    expect((await usageOf(customerId)).diskMB).toBe(0)
  })
})

describe('changing a site’s quota', () => {
  test('PATCH may lower a quota (freeing disk) but not raise it past the limit or remove it', async () => {
    const customerId = await subscribedTo({ sites: 1, diskMB: 100 })
    const site = await created<Site>(await calls.createSite(customerId))
    expect(site.limits.diskMB).toBe(100)
    await calls.settled(site.id, 'active')
    const patch = (diskMB: number | null) =>
      tp.request('PATCH', `/api/v1/sites/${site.id}`, { token: staffToken, body: { limits: { diskMB } } })
    await expectProblem(await patch(101), 422, 'disk_limit_reached')
    await expectFieldProblem(await patch(null), 422, 'disk_quota_required', 'body.limits.diskMB')
    expect((await patch(40)).status).toBe(200)
    expect((await usageOf(customerId)).quota.limits.diskMB?.used).toBe(40)
    expect((await patch(100)).status).toBe(200)
    expect((await usageOf(customerId)).diskMB).toBe(100)
  })
})
