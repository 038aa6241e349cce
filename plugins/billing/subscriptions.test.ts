// Subscriptions the provider starts through /api/v1/subscriptions: who may, plans offered per brand, events and
// audit entries, Idempotency-Key, and lists that never widen the caller's view.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import type { Plan, Subscription } from './contract.ts'
import { billingCalls, created, eventRecorder, ok } from './testing/billing-calls.ts'

const recorder = eventRecorder()
let tp: TestPanel
let calls: ReturnType<typeof billingCalls>
let staffToken: string
let billingSystem: string
let customerId: string
let plan: Plan
let ownerToken: string

function subscribe(token: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return tp.request('POST', '/api/v1/subscriptions', { token, body, headers })
}

beforeAll(async () => {
  tp = await createTestPanel({ plugins: [recorder.plugin], events: { pollIntervalMs: 10 } })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken)
  billingSystem = await tp.token({ scopes: ['billing:read', 'billing:manage'] })
  customerId = await calls.newCustomer()
  plan = await calls.newPlan({ sites: 2 })
  const owner = await createTestUser(tp.panel.store.db, { email: 'owner@acme.example', staffRole: null })
  await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
    token: staffToken,
    body: { email: owner.email, role: 'owner' },
  })
  ownerToken = await tp.token({ user: owner })
})
afterAll(() => tp.panel.close())

describe('creating subscriptions', () => {
  test('a billing system subscribes a customer: 201 active, Location, subscription.created, audit', async () => {
    const response = await subscribe(billingSystem, { customerId, planId: plan.id, externalId: 'whmcs-17' })
    const subscription = await created<Subscription>(response)
    expect(subscription).toMatchObject({
      customerId,
      planId: plan.id,
      status: 'active',
      externalId: 'whmcs-17',
      suspendedReason: null,
      cancelledAt: null,
      removalAt: null,
    })
    expect(subscription.id).toMatch(/^sub_[0-9A-Z]{26}$/)
    expect(response.headers.get('location')).toBe(`/api/v1/subscriptions/${subscription.id}`)
    expect((await recorder.eventually('subscription.created', subscription.id)).data).toEqual(subscription)
    const audit = await ok<Page<{ action: string; details: Record<string, unknown> }>>(
      await tp.request('GET', `/api/v1/audit?subject=${subscription.id}`, { token: staffToken }),
    )
    expect(audit.items[0]).toMatchObject({ action: 'subscription.create', details: { via: 'api' } })
  })

  test('the provider may give a customer several subscriptions; their limits add up', async () => {
    const several = await calls.newCustomer()
    await calls.subscribe(several, plan.id, billingSystem)
    await calls.subscribe(several, plan.id, billingSystem)
    const usage = await ok<{ quota: { limits: { sites: { limit: number } } } }>(
      await tp.request('GET', `/api/v1/usage?customerId=${several}`, { token: staffToken }),
    )
    expect(usage.quota.limits.sites.limit).toBe(4)
  })

  test('the same request with the same Idempotency-Key creates one subscription', async () => {
    const headers = { 'idempotency-key': 'sub-once' }
    const first = await created<Subscription>(
      await subscribe(billingSystem, { customerId, planId: plan.id }, headers),
    )
    const again = await subscribe(billingSystem, { customerId, planId: plan.id }, headers)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(((await again.json()) as Subscription).id).toBe(first.id)
  })

  test('customers’ own members cannot create subscriptions directly (403 staff_only); they use checkout', async () => {
    await expectProblem(await subscribe(ownerToken, { customerId, planId: plan.id }), 403, 'staff_only')
  })

  test('an unknown or invisible customer, and a plan of another brand, are 422 at their fields', async () => {
    await expectFieldProblem(
      await subscribe(billingSystem, { customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', planId: plan.id }),
      422,
      'unknown_billing_customer',
      'body.customerId',
    )
    const brand = await created<{ id: string }>(
      await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Elsewhere' } }),
    )
    const foreign = await calls.newCustomer(brand.id)
    await expectFieldProblem(
      await subscribe(billingSystem, { customerId: foreign, planId: plan.id }),
      422,
      'unknown_plan',
      'body.planId',
    )
    await expectFieldProblem(
      await subscribe(billingSystem, { customerId, planId: 'pln_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' }),
      422,
      'unknown_plan',
      'body.planId',
    )
  })

  test('an archived plan takes no new subscriptions (422 plan_archived)', async () => {
    const old = await calls.newPlan({})
    await tp.request('PATCH', `/api/v1/plans/${old.id}`, { token: staffToken, body: { status: 'archived' } })
    await expectFieldProblem(
      await subscribe(billingSystem, { customerId, planId: old.id }),
      422,
      'plan_archived',
      'body.planId',
    )
  })
})

describe('reading subscriptions', () => {
  test('lists filter by customer, status and plan, and never widen the view', async () => {
    const ended = await calls.subscribe(customerId, plan.id, billingSystem)
    await ok<Subscription>(await calls.act(ended.id, 'cancel', { token: billingSystem }))
    const cancelled = await ok<Page<Subscription>>(
      await tp.request('GET', `/api/v1/subscriptions?customerId=${customerId}&status=cancelled&limit=100`, {
        token: billingSystem,
      }),
    )
    expect(cancelled.items.map((item) => item.id)).toContain(ended.id)
    expect(
      cancelled.items.every((item) => item.status === 'cancelled' && item.customerId === customerId),
    ).toBe(true)
    const byPlan = await ok<Page<Subscription>>(
      await tp.request('GET', `/api/v1/subscriptions?planId=${plan.id}&limit=100`, { token: billingSystem }),
    )
    expect(byPlan.items.every((item) => item.planId === plan.id)).toBe(true)
    const other = await calls.newCustomer()
    const limited = await tp.token({ customerId })
    const narrowed = await ok<Page<Subscription>>(
      await tp.request('GET', `/api/v1/subscriptions?customerId=${other}`, { token: limited }),
    )
    expect(narrowed.items).toEqual([])
  })

  test('a member reads its customer’s subscriptions only; another customer’s is 404', async () => {
    const mine = await ok<Page<Subscription>>(
      await tp.request('GET', '/api/v1/subscriptions', { token: ownerToken }),
    )
    expect(mine.items.length).toBeGreaterThan(0)
    expect(mine.items.every((item) => item.customerId === customerId)).toBe(true)
    const theirs = await calls.subscribe(await calls.newCustomer(), plan.id, billingSystem)
    await expectProblem(
      await tp.request('GET', `/api/v1/subscriptions/${theirs.id}`, { token: ownerToken }),
      404,
      'not_found',
    )
  })
})
