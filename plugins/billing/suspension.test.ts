// What a billing suspension covers, with the real jobs and the local node driver: sites staff suspended by hand,
// several subscriptions, staff and billing suspending the same site, and sites still provisioning.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PluginDefinition } from '../../core/index.ts'
import { createTestPanel, createTestUser, expectProblem, type TestPanel } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'
import { billingCalls, created, ok } from './testing/billing-calls.ts'

const jobs = { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 }
const plugins = (dataDir: string): PluginDefinition[] => [
  brandsPlugin(),
  customersPlugin(),
  nodesPlugin({ dataDir }),
  sitesPlugin(),
  billingPlugin(),
]

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-suspension-'))
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

/** A customer subscribed to a plan of `sites` sites, and its subscription. */
async function subscribed(sites = 3): Promise<{ customerId: string; subscription: Subscription }> {
  const customerId = await calls.newCustomer()
  const subscription = await calls.subscribe(customerId, (await calls.newPlan({ sites })).id)
  return { customerId, subscription }
}

describe('what a suspension covers', () => {
  test('a site staff suspended by hand stays suspended when the subscription is unsuspended', async () => {
    const { customerId, subscription } = await subscribed()
    const [abusive, fine] = [await calls.activeSite(customerId), await calls.activeSite(customerId)]
    const byStaff = await ok<Site>(await calls.siteAct(abusive.id, 'suspend'))
    expect(byStaff).toMatchObject({ status: 'suspended', suspendedByStaff: true })
    await ok<Subscription>(await calls.act(subscription.id, 'suspend'))
    await calls.settled(fine.id, 'suspended')
    await ok<Subscription>(await calls.act(subscription.id, 'unsuspend'))
    await calls.settled(fine.id, 'active')
    expect((await calls.site(abusive.id)).status).toBe('suspended')
    expect(calls.onNode(abusive.id)).toBe('suspended')
  })

  test('while another subscription of the customer is live, its sites keep running under that one’s limits', async () => {
    const { customerId, subscription: first } = await subscribed(1)
    await calls.subscribe(customerId, (await calls.newPlan({ sites: 1 })).id)
    const running = await calls.activeSite(customerId)
    await ok<Subscription>(await calls.act(first.id, 'suspend'))
    expect((await calls.site(running.id)).status).toBe('active')
    // One live subscription of one site is left, and it is used.
    await expectProblem(await calls.createSite(customerId), 422, 'site_limit_reached')
  })
})

describe('staff and billing suspending the same site', () => {
  test('billing suspends a site, staff suspend it for abuse, billing unsuspends: it stays suspended until staff unsuspend it', async () => {
    const { customerId, subscription } = await subscribed()
    const site = await calls.activeSite(customerId)
    await ok<Subscription>(await calls.act(subscription.id, 'suspend'))
    const held = await calls.settled(site.id, 'suspended')
    // The staff reason is recorded on a site billing already holds: no transition, no job.
    const byStaff = await ok<Site>(await calls.siteAct(site.id, 'suspend'))
    expect(byStaff).toMatchObject({ status: 'suspended', suspendedByStaff: true, jobId: held.jobId })
    await expectProblem(await calls.siteAct(site.id, 'suspend'), 409, 'illegal_site_transition')
    await ok<Subscription>(await calls.act(subscription.id, 'unsuspend'))
    // Billing's restore leaves it alone: the subscription's event has gone, the site has not moved.
    expect((await calls.site(site.id)).status).toBe('suspended')
    expect(calls.onNode(site.id)).toBe('suspended')
    const back = await ok<Site>(await calls.siteAct(site.id, 'unsuspend'))
    expect(back).toMatchObject({ status: 'active', suspendedByStaff: false })
    await calls.settled(site.id, 'active')
    expect(calls.onNode(site.id)).toBe('active')
  })

  test('unsuspending a site billing holds is 409 site_held, even for staff; customers’ members may not suspend or unsuspend at all', async () => {
    const { customerId, subscription } = await subscribed()
    const site = await calls.activeSite(customerId)
    const developer = await createTestUser(tp.panel.store.db, { email: 'dev@held.example', staffRole: null })
    await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
      token: staffToken,
      body: { email: developer.email, role: 'developer' },
    })
    const developerToken = await tp.token({ user: developer })
    // site:update is the developer's; suspending is staff work (site:suspend).
    await expectProblem(await calls.siteAct(site.id, 'suspend', developerToken), 403, 'staff_only')
    await ok<Subscription>(await calls.act(subscription.id, 'suspend'))
    await calls.settled(site.id, 'suspended')
    await expectProblem(await calls.siteAct(site.id, 'unsuspend', developerToken), 403, 'staff_only')
    const limitedStaff = await tp.token({ customerId })
    await expectProblem(await calls.siteAct(site.id, 'unsuspend', limitedStaff), 403, 'staff_only')
    const refused = await expectProblem(await calls.siteAct(site.id, 'unsuspend'), 409, 'site_held')
    expect(refused).toMatchObject({ holders: ['billing'] })
    expect((await calls.site(site.id)).status).toBe('suspended')
    // The developer still changes the site itself.
    const renamed = await tp.request('PATCH', `/api/v1/sites/${site.id}`, {
      token: developerToken,
      body: { name: 'Renamed' },
    })
    expect(renamed.status).toBe(200)
  })

  test('unsuspending a running site, or one staff never suspended and nothing holds, is 409 illegal_site_transition', async () => {
    const { customerId } = await subscribed()
    const site = await calls.activeSite(customerId)
    const refused = await expectProblem(
      await calls.siteAct(site.id, 'unsuspend'),
      409,
      'illegal_site_transition',
    )
    expect(refused).toMatchObject({ status: 409, currentStatus: 'active', requestedStatus: 'active' })
  })
})

describe('sites still provisioning', () => {
  test('a site still provisioning when its customer is held comes up suspended, and unsuspending brings it back', async () => {
    // Jobs do not run until the panel starts, so the site is still provisioning when the hold comes.
    const nodeDir = mkdtempSync(join(tmpdir(), 'plinth-held-provisioning-'))
    const paused = await createTestPanel({ standard: false, plugins: plugins(nodeDir), jobs })
    try {
      const token = await paused.token()
      const here = billingCalls(paused, token, { dataDir: nodeDir })
      const customerId = await here.newCustomer()
      const subscription = await here.subscribe(customerId, (await here.newPlan({ sites: 2 })).id)
      const site = await created<Site>(await here.createSite(customerId))
      await ok<Subscription>(await here.act(subscription.id, 'suspend'))
      expect((await here.site(site.id)).status).toBe('provisioning')
      paused.panel.start()
      await here.settled(site.id, 'suspended')
      expect(here.onNode(site.id)).toBe('suspended')
      await ok<Subscription>(await here.act(subscription.id, 'unsuspend'))
      await here.settled(site.id, 'active')
      expect(here.onNode(site.id)).toBe('active')
    } finally {
      await paused.panel.close()
    }
  })
})
