// Checkout, the customers' own way to subscribe: once per customer, never a way out of a suspension, open or closed
// by the operator, with Idempotency-Key, within the caller's view.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CustomerQuota } from '../../core/index.ts'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Plan, Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'
import { billingCalls, created, ok } from './testing/billing-calls.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-checkout-'))
let tp: TestPanel
let calls: ReturnType<typeof billingCalls>
let staffToken: string
let plan: Plan
let memberCount = 0

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [brandsPlugin(), customersPlugin(), nodesPlugin({ dataDir }), sitesPlugin(), billingPlugin()],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken, { dataDir })
  plan = await calls.newPlan({ sites: 1 })
})
afterAll(() => tp.panel.close())

/** A new customer and a token of one of its members in `role`. */
async function customerWith(
  role: 'owner' | 'developer' | 'billing',
): Promise<{ customerId: string; token: string }> {
  const customerId = await calls.newCustomer()
  const user = await createTestUser(tp.panel.store.db, {
    email: `m${memberCount++}@c.example`,
    staffRole: null,
  })
  await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
    token: staffToken,
    body: { email: user.email, role },
  })
  return { customerId, token: await tp.token({ user }) }
}

async function quotaOf(customerId: string): Promise<CustomerQuota> {
  const usage = await ok<{ quota: CustomerQuota }>(
    await tp.request('GET', `/api/v1/usage?customerId=${customerId}`, { token: staffToken }),
  )
  return usage.quota
}

describe('checking out', () => {
  test('an owner checks out an active plan of its brand: 201 with the subscription, once per Idempotency-Key', async () => {
    const { customerId, token } = await customerWith('owner')
    const offered = await ok<Page<Plan>>(
      await tp.request('GET', `/api/v1/checkout/plans?customerId=${customerId}`, { token }),
    )
    expect(offered.items.map((item) => item.id)).toContain(plan.id)
    expect(offered.items.every((item) => item.status === 'active')).toBe(true)
    const headers = { 'idempotency-key': 'checkout-1' }
    const subscription = await created<Subscription>(
      await calls.checkout(token, customerId, plan.id, headers),
    )
    expect(subscription).toMatchObject({ customerId, planId: plan.id, status: 'active' })
    const replay = await calls.checkout(token, customerId, plan.id, headers)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(((await replay.json()) as Subscription).id).toBe(subscription.id)
  })

  test('a developer holds no billing scope: 403 insufficient_scope, and sees no subscriptions', async () => {
    const { customerId, token } = await customerWith('developer')
    await expectProblem(await calls.checkout(token, customerId, plan.id), 403, 'insufficient_scope')
    await expectProblem(
      await tp.request('GET', '/api/v1/subscriptions', { token }),
      403,
      'insufficient_scope',
    )
  })

  test('another customer’s plans are 404 to a member, and checking it out is 422 at body.customerId', async () => {
    const { token } = await customerWith('billing')
    const other = await calls.newCustomer()
    await expectProblem(
      await tp.request('GET', `/api/v1/checkout/plans?customerId=${other}`, { token }),
      404,
      'not_found',
    )
    await expectFieldProblem(
      await calls.checkout(token, other, plan.id),
      422,
      'unknown_billing_customer',
      'body.customerId',
    )
  })
})

describe('checkout subscribes a customer once', () => {
  test('three checkouts of a one-site plan no longer stack to three sites: the second and third are 409 already_subscribed', async () => {
    const { customerId, token } = await customerWith('owner')
    const first = await created<Subscription>(await calls.checkout(token, customerId, plan.id))
    for (let i = 0; i < 2; i++) {
      const refused = await expectProblem(
        await calls.checkout(token, customerId, plan.id),
        409,
        'already_subscribed',
      )
      expect(refused).toMatchObject({ subscriptionId: first.id })
    }
    expect((await quotaOf(customerId)).limits.sites?.limit).toBe(1)
    // A past-due subscription is live too; a bigger plan goes through the provider.
    await ok<Subscription>(await calls.patch(first.id, { status: 'past_due' }))
    await expectProblem(await calls.checkout(token, customerId, plan.id), 409, 'already_subscribed')
  })

  test('concurrent checkouts of one customer start exactly one subscription', async () => {
    const { customerId, token } = await customerWith('owner')
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => calls.checkout(token, customerId, plan.id)),
    )
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409])
  })

  test('once the subscription is cancelled, checkout is open again, and restores what the cancellation suspended', async () => {
    const { customerId, token } = await customerWith('owner')
    const first = await created<Subscription>(await calls.checkout(token, customerId, plan.id))
    const site = await calls.activeSite(customerId)
    await ok<Subscription>(await calls.act(first.id, 'cancel', { token }))
    await calls.settled(site.id, 'suspended')
    await created<Subscription>(await calls.checkout(token, customerId, plan.id))
    await calls.settled(site.id, 'active')
  })
})

describe('checkout never lifts a suspension', () => {
  test('a customer suspended for non-payment cannot check out its way back: 409 subscription_suspended, and its sites stay suspended', async () => {
    const { customerId, token } = await customerWith('owner')
    const subscription = await created<Subscription>(await calls.checkout(token, customerId, plan.id))
    const site = await calls.activeSite(customerId)
    await ok<Subscription>(await calls.act(subscription.id, 'suspend'))
    await calls.settled(site.id, 'suspended')
    const other = await calls.newPlan({ sites: 5 })
    for (const planId of [plan.id, other.id]) {
      const refused = await expectProblem(
        await calls.checkout(token, customerId, planId),
        409,
        'subscription_suspended',
      )
      expect(refused).toMatchObject({ subscriptionId: subscription.id })
    }
    expect((await quotaOf(customerId)).source).toBe('suspended')
    expect((await calls.site(site.id)).status).toBe('suspended')
    expect(calls.onNode(site.id)).toBe('suspended')
  })

  test('nor by cancelling the suspended subscription first: checkout stays 409 until the removal', async () => {
    const { customerId, token } = await customerWith('owner')
    const subscription = await created<Subscription>(await calls.checkout(token, customerId, plan.id))
    await ok<Subscription>(await calls.act(subscription.id, 'suspend'))
    const cancelled = await ok<Subscription>(await calls.act(subscription.id, 'cancel', { token }))
    expect(cancelled).toMatchObject({ status: 'cancelled', suspendedReason: 'invoice 1042 unpaid' })
    await expectProblem(await calls.checkout(token, customerId, plan.id), 409, 'subscription_suspended')
    // Staff may still start one.
    await calls.subscribe(customerId, plan.id)
    expect((await quotaOf(customerId)).source).toBe('subscriptions')
  })
})

describe('checkout closed by the operator', () => {
  test('billingPlugin({ checkout: "closed" }) answers 403 checkout_closed; staff and billing systems still subscribe customers', async () => {
    const closed = await createTestPanel({ billingCheckout: 'closed' })
    try {
      const token = await closed.token()
      const shop = billingCalls(closed, token)
      const customerId = await shop.newCustomer()
      const offered = await shop.newPlan({ sites: 1 })
      await expectProblem(await shop.checkout(token, customerId, offered.id), 403, 'checkout_closed')
      expect((await shop.subscribe(customerId, offered.id)).status).toBe('active')
      const capabilities = await ok<{ installation: { plugins: { name: string; capabilities: unknown }[] } }>(
        await closed.request('GET', '/api/v1/capabilities', { token }),
      )
      expect(
        capabilities.installation.plugins.find((plugin) => plugin.name === 'billing')?.capabilities,
      ).toEqual({
        checkout: 'closed',
        removalGraceHours: 720,
      })
    } finally {
      await closed.panel.close()
    }
  })

  test('a checkout setting other than open or closed stops the plugin from being made', () => {
    expect(() => billingPlugin({ checkout: 'maybe' as 'open' })).toThrow(/open.*closed/)
  })
})
