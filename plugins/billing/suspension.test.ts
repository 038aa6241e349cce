// Billing suspends and restores customers' sites through the site lifecycle, with the real jobs and the local node
// driver running: the walk of issue 6, hand-suspended sites left alone, several subscriptions, and cancellation.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import { definePlugin, type OutboxEvent, type Page } from '../../core/index.ts'
import { createTestPanel, type TestPanel } from '../../core/testing/create-test-panel.ts'
import { expectProblem } from '../../core/testing/problems.ts'
import { createTestUser } from '../../core/testing/users.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../../core/testing/webhook-receiver.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import { webhooksPlugin } from '../webhooks/index.ts'
import type { Plan, Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-suspension-'))
const events: OutboxEvent[] = []
/** Grace between cancelling and removal: long enough to subscribe again in between, short enough to wait for. */
const graceMs = 1_500

let tp: TestPanel
let staffToken: string
let billingSystem: string
let sequence = 0

const recorder = definePlugin({
  name: 'event-recorder',
  version: '1.0.0',
  description: 'Keeps every event the outbox hands over, where the webhooks plugin would take them.',
  setup(context) {
    context.consumeEvents({ name: 'recorder', receive: async (_trx, event) => void events.push(event) })
  },
})

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir }),
      sitesPlugin(),
      billingPlugin({ removalGraceHours: graceMs / 3_600_000 }),
      webhooksPlugin({ allowedHosts: ['127.0.0.1'], pollIntervalMs: 10 }),
      recorder,
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  // An external billing system: a staff token that holds only the billing scopes.
  billingSystem = await tp.token({ scopes: ['billing:read', 'billing:manage'] })
})
let receiver: WebhookReceiver
afterAll(async () => {
  await tp.panel.close()
  receiver?.stop()
})

async function created<T>(response: Response): Promise<T> {
  expect(response.status).toBe(201)
  return (await response.json()) as T
}

async function ok<T>(response: Response): Promise<T> {
  expect(response.status).toBe(200)
  return (await response.json()) as T
}

async function newCustomer(): Promise<string> {
  return (
    await created<{ id: string }>(
      await tp.request('POST', '/api/v1/customers', { token: staffToken, body: { name: 'C' } }),
    )
  ).id
}

async function newPlan(limits: Record<string, number>): Promise<Plan> {
  return created<Plan>(
    await tp.request('POST', '/api/v1/plans', { token: staffToken, body: { name: 'Plan', limits } }),
  )
}

function createSite(token: string, customerId: string): Promise<Response> {
  return tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name: 'Site', type: 'wordpress', domain: `walk${sequence++}.example.com` },
  })
}

async function site(id: string): Promise<Site> {
  return (await (await tp.request('GET', `/api/v1/sites/${id}`, { token: staffToken })).json()) as Site
}

/** Waits until the site is in `status` and the job that put it there has succeeded. */
async function settled(id: string, status: string): Promise<Site> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const current = await site(id)
    if (current.status === status && current.jobId) {
      const job = (await (
        await tp.request('GET', `/api/v1/jobs/${current.jobId}`, { token: staffToken })
      ).json()) as {
        status: string
      }
      if (job.status === 'succeeded') return current
    }
    if (Date.now() > deadline)
      throw new Error(`site ${id} never settled as ${status}: ${JSON.stringify(current)}`)
    await Bun.sleep(10)
  }
}

async function activeSite(customerId: string, token = staffToken): Promise<Site> {
  return settled((await created<Site>(await createSite(token, customerId))).id, 'active')
}

/** What the local node has for a site: `active` or `suspended` (the driver's own record). */
function onNode(id: string): string {
  return (JSON.parse(readFileSync(join(dataDir, 'sites', id, 'state.json'), 'utf8')) as { state: string })
    .state
}

function suspend(id: string, reason = 'invoice 1042 unpaid'): Promise<Response> {
  return tp.request('POST', `/api/v1/subscriptions/${id}/suspend`, { token: billingSystem, body: { reason } })
}

function unsuspend(id: string): Promise<Response> {
  return tp.request('POST', `/api/v1/subscriptions/${id}/unsuspend`, { token: billingSystem })
}

describe('the walk: plan, checkout, sites within limits, suspension and back', () => {
  test('plan → checkout → sites → over the limit refused → suspended → subscription.suspended → unsuspended → active', async () => {
    // An integration listens for suspensions on a webhook endpoint.
    receiver = startWebhookReceiver()
    const endpoint = await created<{ secret: string }>(
      await tp.request('POST', '/api/v1/webhooks', {
        token: staffToken,
        body: { url: receiver.url, events: ['subscription.suspended', 'subscription.unsuspended'] },
      }),
    )
    // Staff make a plan of two sites.
    const plan = await newPlan({ sites: 2, domains: 2 })
    // The customer's owner checks out with its own token.
    const customerId = await newCustomer()
    const owner = await createTestUser(tp.panel.store.db, { email: 'owner@walk.example', staffRole: null })
    await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
      token: staffToken,
      body: { email: owner.email, role: 'owner' },
    })
    const ownerToken = await tp.token({ user: owner })
    const subscription = await created<Subscription>(
      await tp.request('POST', '/api/v1/checkout', {
        token: ownerToken,
        body: { customerId, planId: plan.id },
        headers: { 'idempotency-key': 'walk-checkout' },
      }),
    )
    expect(subscription.status).toBe('active')
    // Two sites fit the plan and are provisioned on the node; a third is refused.
    const sites = [await activeSite(customerId, ownerToken), await activeSite(customerId, ownerToken)]
    await expectProblem(await createSite(ownerToken, customerId), 422, 'site_limit_reached')
    // The external billing system suspends the subscription.
    const suspended = await ok<Subscription>(await suspend(subscription.id))
    expect(suspended).toMatchObject({ status: 'suspended', suspendedReason: 'invoice 1042 unpaid' })
    for (const { id } of sites) {
      expect((await site(id)).status).toBe('suspended')
      await settled(id, 'suspended')
      expect(onNode(id)).toBe('suspended')
    }
    // An integration's webhook receiver learns of it, signed per Standard Webhooks.
    const delivered = await receiver.waitFor(
      (hook) => hook.json.type === 'subscription.suspended' && hook.json.data.id === subscription.id,
    )
    expect(new StandardWebhook(endpoint.secret).verify(delivered.body, delivered.headers)).toEqual(
      delivered.json,
    )
    expect(delivered.json.data).toMatchObject({ id: subscription.id, customerId, status: 'suspended' })
    await expectProblem(await createSite(ownerToken, customerId), 422, 'customer_suspended')
    // Unsuspended: the sites are active again, on the node too.
    expect((await ok<Subscription>(await unsuspend(subscription.id))).status).toBe('active')
    for (const { id } of sites) {
      await settled(id, 'active')
      expect(onNode(id)).toBe('active')
    }
    await receiver.waitFor(
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
    const updates = events.filter((e) => e.kind === 'site.updated' && e.data.id === sites[0]?.id)
    expect(updates.map((e) => e.data.status)).toEqual(['active', 'suspended', 'active'])
  })
})

describe('what a suspension covers', () => {
  test('a site staff suspended by hand stays suspended when the subscription is unsuspended', async () => {
    const customerId = await newCustomer()
    const subscription = await created<Subscription>(
      await tp.request('POST', '/api/v1/subscriptions', {
        token: billingSystem,
        body: { customerId, planId: (await newPlan({ sites: 3 })).id },
      }),
    )
    const [abusive, fine] = [await activeSite(customerId), await activeSite(customerId)]
    await ok<Site>(await tp.request('POST', `/api/v1/sites/${abusive?.id}/suspend`, { token: staffToken }))
    await ok<Subscription>(await suspend(subscription.id))
    await settled(fine.id, 'suspended')
    await ok<Subscription>(await unsuspend(subscription.id))
    await settled(fine.id, 'active')
    expect((await site(abusive.id)).status).toBe('suspended')
    expect(onNode(abusive.id)).toBe('suspended')
  })

  test('while another subscription of the customer is live, its sites keep running under that one’s limits', async () => {
    const customerId = await newCustomer()
    const subscribe = async (limits: Record<string, number>) =>
      created<Subscription>(
        await tp.request('POST', '/api/v1/subscriptions', {
          token: billingSystem,
          body: { customerId, planId: (await newPlan(limits)).id },
        }),
      )
    const first = await subscribe({ sites: 1 })
    await subscribe({ sites: 1 })
    const running = await activeSite(customerId)
    await ok<Subscription>(await suspend(first.id))
    expect((await site(running.id)).status).toBe('active')
    // One live subscription of one site is left, and it is used.
    await expectProblem(await createSite(staffToken, customerId), 422, 'site_limit_reached')
  })
})

describe('cancellation', () => {
  test('cancelling the last subscription suspends the sites at once and removes them after the grace period', async () => {
    const customerId = await newCustomer()
    const subscription = await created<Subscription>(
      await tp.request('POST', '/api/v1/subscriptions', {
        token: billingSystem,
        body: { customerId, planId: (await newPlan({ sites: 2 })).id },
      }),
    )
    const running = await activeSite(customerId)
    const cancelled = await ok<Subscription>(
      await tp.request('POST', `/api/v1/subscriptions/${subscription.id}/cancel`, { token: billingSystem }),
    )
    expect(cancelled.status).toBe('cancelled')
    expect((await site(running.id)).status).toBe('suspended')
    await expectProblem(await createSite(staffToken, customerId), 422, 'customer_suspended')
    const deadline = Date.now() + graceMs + 5_000
    while ((await tp.request('GET', `/api/v1/sites/${running.id}`, { token: staffToken })).status !== 404) {
      if (Date.now() > deadline) throw new Error('the cancelled customer’s site was never removed')
      await Bun.sleep(20)
    }
    // Removed: the customer is back on the installation's defaults (none here).
    await activeSite(customerId)
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
    const customerId = await newCustomer()
    const plan = await newPlan({ sites: 2 })
    const first = await created<Subscription>(
      await tp.request('POST', '/api/v1/subscriptions', {
        token: billingSystem,
        body: { customerId, planId: plan.id },
      }),
    )
    const running = await activeSite(customerId)
    await ok<Subscription>(
      await tp.request('POST', `/api/v1/subscriptions/${first.id}/cancel`, { token: billingSystem }),
    )
    await settled(running.id, 'suspended')
    await created<Subscription>(
      await tp.request('POST', '/api/v1/checkout', {
        token: staffToken,
        body: { customerId, planId: plan.id },
      }),
    )
    await settled(running.id, 'active')
    const removal = async () => {
      const jobs = await ok<Page<{ kind: string; status: string; subject: { id: string }; result: unknown }>>(
        await tp.request('GET', '/api/v1/jobs?limit=100', { token: staffToken }),
      )
      return jobs.items.find(
        (job) => job.kind === 'subscription.removeResources' && job.subject.id === first.id,
      )
    }
    const deadline = Date.now() + graceMs + 5_000
    while ((await removal())?.status !== 'succeeded') {
      if (Date.now() > deadline) throw new Error('the removal job never ran')
      await Bun.sleep(20)
    }
    expect((await removal())?.result).toEqual({ skipped: true })
    expect((await site(running.id)).status).toBe('active')
  })
})
