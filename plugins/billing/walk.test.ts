// The walk of issue 6 through HTTP with the real jobs, the local node driver and a real webhook receiver: plan,
// checkout, sites within limits, one over the limit refused, suspension, subscription.suspended, and back.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type Page,
  startWebhookReceiver,
  type TestPanel,
  type WebhookReceiver,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { webhooksPlugin } from '../webhooks/index.ts'
import type { Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'
import { billingCalls, created, eventRecorder, ok } from './testing/billing-calls.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-walk-'))
const recorder = eventRecorder()
let tp: TestPanel
let calls: ReturnType<typeof billingCalls>
let staffToken: string
let billingSystem: string
let receiver: WebhookReceiver | undefined

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir }),
      sitesPlugin(),
      billingPlugin(),
      webhooksPlugin({ allowedHosts: ['127.0.0.1'], pollIntervalMs: 10 }),
      recorder.plugin,
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken, { dataDir })
  // An external billing system: a staff token that holds only the billing scopes.
  billingSystem = await tp.token({ scopes: ['billing:read', 'billing:manage'] })
})
afterAll(async () => {
  await tp.panel.close()
  receiver?.stop()
})

describe('the walk: plan, checkout, sites within limits, suspension and back', () => {
  test('plan → checkout → sites → over the limit refused → suspended → subscription.suspended → unsuspended → active', async () => {
    // An integration listens for suspensions on a webhook endpoint.
    const hooks = startWebhookReceiver()
    receiver = hooks
    const endpoint = await created<{ secret: string }>(
      await tp.request('POST', '/api/v1/webhooks', {
        token: staffToken,
        body: { url: hooks.url, events: ['subscription.suspended', 'subscription.unsuspended'] },
      }),
    )
    // Staff make a plan of two sites.
    const plan = await calls.newPlan({ sites: 2, domains: 2 })
    // The customer's owner checks out with its own token.
    const customerId = await calls.newCustomer()
    const owner = await createTestUser(tp.panel.store.db, { email: 'owner@walk.example', staffRole: null })
    await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
      token: staffToken,
      body: { email: owner.email, role: 'owner' },
    })
    const ownerToken = await tp.token({ user: owner })
    const subscription = await created<Subscription>(
      await calls.checkout(ownerToken, customerId, plan.id, { 'idempotency-key': 'walk-checkout' }),
    )
    expect(subscription.status).toBe('active')
    // Two sites fit the plan and are provisioned on the node; a third is refused.
    const sites = [
      await calls.activeSite(customerId, ownerToken),
      await calls.activeSite(customerId, ownerToken),
    ]
    await expectProblem(await calls.createSite(customerId, {}, ownerToken), 422, 'site_limit_reached')
    // The external billing system suspends the subscription.
    const suspended = await ok<Subscription>(
      await calls.act(subscription.id, 'suspend', { token: billingSystem }),
    )
    expect(suspended).toMatchObject({ status: 'suspended', suspendedReason: 'invoice 1042 unpaid' })
    for (const { id } of sites) {
      expect((await calls.site(id)).status).toBe('suspended')
      await calls.settled(id, 'suspended')
      expect(calls.onNode(id)).toBe('suspended')
    }
    // An integration's webhook receiver learns of it, signed per Standard Webhooks.
    const delivered = await hooks.waitFor(
      (hook) => hook.json.type === 'subscription.suspended' && hook.json.data.id === subscription.id,
    )
    expect(new StandardWebhook(endpoint.secret).verify(delivered.body, delivered.headers)).toEqual(
      delivered.json,
    )
    expect(delivered.json.data).toMatchObject({ id: subscription.id, customerId, status: 'suspended' })
    await expectProblem(await calls.createSite(customerId, {}, ownerToken), 422, 'customer_suspended')
    // Unsuspended: the sites are active again, on the node too.
    expect(
      (await ok<Subscription>(await calls.act(subscription.id, 'unsuspend', { token: billingSystem })))
        .status,
    ).toBe('active')
    for (const { id } of sites) {
      await calls.settled(id, 'active')
      expect(calls.onNode(id)).toBe('active')
    }
    await hooks.waitFor(
      (hook) => hook.json.type === 'subscription.unsuspended' && hook.json.data.id === subscription.id,
    )
    // Every site change was announced and audited as the billing system's doing.
    const audit = await ok<
      Page<{ action: string; actor: { tokenId: string | null }; details: { reason?: string } }>
    >(
      await tp.request('GET', `/api/v1/audit?subject=${sites[0]?.id}&action=site.suspend`, {
        token: staffToken,
      }),
    )
    expect(audit.items[0]?.details.reason).toContain('invoice 1042 unpaid')
    const me = await ok<{ token: { id: string } }>(
      await tp.request('GET', '/api/v1/me', { token: billingSystem }),
    )
    expect(audit.items[0]?.actor.tokenId).toBe(me.token.id)
    const updates = recorder.events.filter((e) => e.kind === 'site.updated' && e.data.id === sites[0]?.id)
    expect(updates.map((e) => e.data.status)).toEqual(['active', 'suspended', 'active'])
  })
})
