// Cancellation with the real jobs and the local node driver: sites suspended at once and removed after the grace
// period, subscribing again in between, several cancellations of one customer, and sites still provisioning.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PluginDefinition } from '../../core/index.ts'
import { createTestPanel, expectProblem, type Page, type TestPanel } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'
import { billingCalls, created, ok } from './testing/billing-calls.ts'

/** Grace between cancelling and removal: long enough to act in between, short enough to wait for. */
const graceMs = 2_000
const jobs = { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 }
const plugins = (dataDir: string, grace = graceMs): PluginDefinition[] => [
  brandsPlugin(),
  customersPlugin(),
  nodesPlugin({ dataDir }),
  sitesPlugin(),
  billingPlugin({ removalGraceHours: grace / 3_600_000 }),
]

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-cancellation-'))
let tp: TestPanel
let calls: ReturnType<typeof billingCalls>
let staffToken: string

beforeAll(async () => {
  tp = await createTestPanel({ standard: false, plugins: plugins(dataDir), jobs })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken, { dataDir })
})
afterAll(() => tp.panel.close())

describe('cancellation', () => {
  test('cancelling the last subscription suspends the sites at once and removes them after the grace period', async () => {
    const customerId = await calls.newCustomer()
    const subscription = await calls.subscribe(customerId, (await calls.newPlan({ sites: 2 })).id)
    const running = await calls.activeSite(customerId)
    const cancelled = await ok<Subscription>(await calls.act(subscription.id, 'cancel'))
    expect(cancelled.status).toBe('cancelled')
    expect((await calls.site(running.id)).status).toBe('suspended')
    await expectProblem(await calls.createSite(customerId), 422, 'customer_suspended')
    await calls.gone(running.id, graceMs + 5_000)
    // Removed: the customer is back on the installation's defaults (none here).
    await calls.activeSite(customerId)
    const audit = await ok<Page<{ action: string; details: { removed?: unknown[] } }>>(
      await tp.request(
        'GET',
        `/api/v1/audit?subject=${subscription.id}&action=subscription.removeResources`,
        {
          token: staffToken,
        },
      ),
    )
    expect(audit.items[0]?.details.removed).toEqual([{ kind: 'sites', id: running.id }])
  })

  test('subscribing again before the grace period ends restores the sites, and the removal does nothing', async () => {
    const customerId = await calls.newCustomer()
    const plan = await calls.newPlan({ sites: 2 })
    const first = await calls.subscribe(customerId, plan.id)
    const running = await calls.activeSite(customerId)
    await ok<Subscription>(await calls.act(first.id, 'cancel'))
    await calls.settled(running.id, 'suspended')
    const again = await created<Subscription>(await calls.checkout(staffToken, customerId, plan.id))
    await calls.settled(running.id, 'active')
    const removal = await calls.jobOf('subscription.removeResources', first.id, 'succeeded', graceMs + 5_000)
    expect(removal.result).toEqual({
      skipped: true,
      why: 'the customer holds a subscription that is not cancelled',
      kept: again.id,
    })
    expect((await calls.site(running.id)).status).toBe('active')
  })

  test('an earlier cancellation’s removal waits for a later one: of two subscriptions cancelled apart, the sites go only when the later grace period ends', async () => {
    const customerId = await calls.newCustomer()
    const early = await calls.subscribe(customerId, (await calls.newPlan({ sites: 1 })).id)
    const late = await calls.subscribe(customerId, (await calls.newPlan({ sites: 1 })).id)
    const site = await calls.activeSite(customerId)
    // Day 0: one is cancelled; the other keeps the customer live.
    await ok<Subscription>(await calls.act(early.id, 'cancel'))
    expect((await calls.site(site.id)).status).toBe('active')
    await Bun.sleep(graceMs / 2)
    // "Day 29": the other is cancelled too; the sites are suspended, to go when its own grace period ends.
    const lateCancel = await ok<Subscription>(await calls.act(late.id, 'cancel'))
    await calls.settled(site.id, 'suspended')
    const first = await calls.jobOf('subscription.removeResources', early.id, 'succeeded', graceMs + 5_000)
    expect(first.result).toEqual({
      skipped: true,
      why: 'a later cancellation’s grace period is not over',
      removalAt: lateCancel.removalAt,
    })
    expect((await calls.site(site.id)).status).toBe('suspended')
    // The later removal still comes, and removes them.
    await calls.gone(site.id, graceMs + 5_000)
    const second = await calls.jobOf('subscription.removeResources', late.id)
    expect(second.result).toEqual({ removed: 1 })
  })
})

describe('sites still provisioning', () => {
  test('removal takes sites still provisioning too: they are deleted, on the node as well, once provisioning is done with them', async () => {
    // Jobs do not run until the panel starts: the removal (no grace) and the provisioning are due together.
    const nodeDir = mkdtempSync(join(tmpdir(), 'plinth-removal-provisioning-'))
    const paused = await createTestPanel({ standard: false, plugins: plugins(nodeDir, 0), jobs })
    try {
      const token = await paused.token()
      const here = billingCalls(paused, token, { dataDir: nodeDir })
      const customerId = await here.newCustomer()
      const subscription = await here.subscribe(customerId, (await here.newPlan({ sites: 2 })).id)
      const sites = [
        await created<Site>(await here.createSite(customerId)),
        await created<Site>(await here.createSite(customerId)),
      ]
      await ok<Subscription>(await here.act(subscription.id, 'cancel'))
      // One is deleted by hand as well: DELETE of a provisioning site waits for its provisioning too.
      const deleting = await paused.request('DELETE', `/api/v1/sites/${sites[1]?.id}`, { token })
      expect(deleting.status).toBe(202)
      expect(((await deleting.json()) as Site).status).toBe('deleting')
      paused.panel.start()
      for (const site of sites) {
        await here.gone(site.id)
        expect(existsSync(join(nodeDir, 'sites', site.id))).toBe(false)
      }
    } finally {
      await paused.panel.close()
    }
  })
})
