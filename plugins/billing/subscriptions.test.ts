// Subscriptions through /api/v1/subscriptions and /api/v1/checkout: who may do what, the state table enforced, plans
// offered per brand, events and audit entries, and Idempotency-Key on the creating POSTs.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin, type OutboxEvent, type Page, type User } from '../../core/index.ts'
import { createTestPanel, type TestPanel } from '../../core/testing/create-test-panel.ts'
import { expectFieldProblem, expectProblem } from '../../core/testing/problems.ts'
import { createTestUser } from '../../core/testing/users.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import type { Plan, Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'

let tp: TestPanel
let staffToken: string
let billingSystem: string
let customerId: string
let plan: Plan
let owner: User
let ownerToken: string
let developerToken: string
const events: OutboxEvent[] = []

const recorder = definePlugin({
  name: 'event-recorder',
  version: '1.0.0',
  description: 'Keeps every event the outbox hands over, standing in for a webhook receiver.',
  setup(context) {
    context.consumeEvents({ name: 'recorder', receive: async (_trx, event) => void events.push(event) })
  },
})

async function created<T>(response: Response): Promise<T> {
  expect(response.status).toBe(201)
  return (await response.json()) as T
}

async function ok<T>(response: Response): Promise<T> {
  expect(response.status).toBe(200)
  return (await response.json()) as T
}

async function newCustomer(name: string, brandId?: string): Promise<string> {
  const body = brandId ? { name, brandId } : { name }
  return (
    await created<{ id: string }>(await tp.request('POST', '/api/v1/customers', { token: staffToken, body }))
  ).id
}

function subscribe(token: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return tp.request('POST', '/api/v1/subscriptions', { token, body, headers })
}

function act(token: string, id: string, verb: string, body?: unknown) {
  return tp.request('POST', `/api/v1/subscriptions/${id}/${verb}`, { token, body })
}

async function eventually(kind: string, subjectId: string): Promise<OutboxEvent> {
  const deadline = Date.now() + 3_000
  for (;;) {
    const found = events.find((event) => event.kind === kind && event.data.id === subjectId)
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no ${kind} for ${subjectId}`)
    await Bun.sleep(10)
  }
}

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [brandsPlugin(), customersPlugin(), billingPlugin(), recorder],
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  billingSystem = await tp.token({ scopes: ['billing:read', 'billing:manage'] })
  customerId = await newCustomer('Acme')
  plan = await created<Plan>(
    await tp.request('POST', '/api/v1/plans', {
      token: staffToken,
      body: { name: 'Basic', limits: { sites: 2 } },
    }),
  )
  owner = await createTestUser(tp.panel.store.db, { email: 'owner@acme.example', staffRole: null })
  const developer = await createTestUser(tp.panel.store.db, { email: 'dev@acme.example', staffRole: null })
  for (const [user, role] of [
    [owner, 'owner'],
    [developer, 'developer'],
  ] as const) {
    await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
      token: staffToken,
      body: { email: user.email, role },
    })
  }
  ownerToken = await tp.token({ user: owner })
  developerToken = await tp.token({ user: developer })
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
    expect((await eventually('subscription.created', subscription.id)).data).toEqual(subscription)
    const audit = await ok<Page<{ action: string; details: Record<string, unknown> }>>(
      await tp.request('GET', `/api/v1/audit?subject=${subscription.id}`, { token: staffToken }),
    )
    expect(audit.items[0]).toMatchObject({ action: 'subscription.create', details: { via: 'api' } })
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
    const foreign = await newCustomer('Foreign', brand.id)
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
    const old = await created<Plan>(
      await tp.request('POST', '/api/v1/plans', { token: staffToken, body: { name: 'Old' } }),
    )
    await tp.request('PATCH', `/api/v1/plans/${old.id}`, { token: staffToken, body: { status: 'archived' } })
    await expectFieldProblem(
      await subscribe(billingSystem, { customerId, planId: old.id }),
      422,
      'plan_archived',
      'body.planId',
    )
  })
})

describe('checkout', () => {
  test('an owner checks out an active plan of its brand: 201 with the subscription', async () => {
    const offered = await ok<Page<Plan>>(
      await tp.request('GET', `/api/v1/checkout/plans?customerId=${customerId}`, { token: ownerToken }),
    )
    expect(offered.items.map((item) => item.id)).toContain(plan.id)
    expect(offered.items.every((item) => item.status === 'active')).toBe(true)
    const response = await tp.request('POST', '/api/v1/checkout', {
      token: ownerToken,
      body: { customerId, planId: plan.id },
      headers: { 'idempotency-key': 'checkout-1' },
    })
    const subscription = await created<Subscription>(response)
    expect(subscription).toMatchObject({ customerId, planId: plan.id, status: 'active' })
    const replay = await tp.request('POST', '/api/v1/checkout', {
      token: ownerToken,
      body: { customerId, planId: plan.id },
      headers: { 'idempotency-key': 'checkout-1' },
    })
    expect(((await replay.json()) as Subscription).id).toBe(subscription.id)
    const mine = await ok<Page<Subscription>>(
      await tp.request('GET', '/api/v1/subscriptions', { token: ownerToken }),
    )
    expect(mine.items.every((item) => item.customerId === customerId)).toBe(true)
  })

  test('a developer holds no billing scope: 403 insufficient_scope, and sees no subscriptions', async () => {
    await expectProblem(
      await tp.request('POST', '/api/v1/checkout', {
        token: developerToken,
        body: { customerId, planId: plan.id },
      }),
      403,
      'insufficient_scope',
    )
    await expectProblem(
      await tp.request('GET', '/api/v1/subscriptions', { token: developerToken }),
      403,
      'insufficient_scope',
    )
  })

  test('another customer’s plans and subscriptions are 404 to a member', async () => {
    const other = await newCustomer('Other')
    const theirs = await created<Subscription>(
      await subscribe(billingSystem, { customerId: other, planId: plan.id }),
    )
    await expectProblem(
      await tp.request('GET', `/api/v1/subscriptions/${theirs.id}`, { token: ownerToken }),
      404,
      'not_found',
    )
    await expectProblem(
      await tp.request('GET', `/api/v1/checkout/plans?customerId=${other}`, { token: ownerToken }),
      404,
      'not_found',
    )
    await expectFieldProblem(
      await tp.request('POST', '/api/v1/checkout', {
        token: ownerToken,
        body: { customerId: other, planId: plan.id },
      }),
      422,
      'unknown_billing_customer',
      'body.customerId',
    )
  })
})

describe('the subscription state table', () => {
  async function fresh(): Promise<Subscription> {
    return created<Subscription>(await subscribe(billingSystem, { customerId, planId: plan.id }))
  }

  test('active → past_due → active with PATCH, each sent as subscription.updated', async () => {
    const subscription = await fresh()
    const late = await ok<Subscription>(
      await tp.request('PATCH', `/api/v1/subscriptions/${subscription.id}`, {
        token: billingSystem,
        body: { status: 'past_due' },
      }),
    )
    expect(late.status).toBe('past_due')
    const paid = await ok<Subscription>(
      await tp.request('PATCH', `/api/v1/subscriptions/${subscription.id}`, {
        token: billingSystem,
        body: { status: 'active', externalId: 'stripe-sub-1' },
      }),
    )
    expect(paid).toMatchObject({ status: 'active', externalId: 'stripe-sub-1' })
    expect((await eventually('subscription.updated', subscription.id)).kind).toBe('subscription.updated')
    const found = await ok<Page<Subscription>>(
      await tp.request('GET', '/api/v1/subscriptions?externalId=stripe-sub-1', { token: billingSystem }),
    )
    expect(found.items.map((item) => item.id)).toEqual([subscription.id])
  })

  test('suspend takes a reason; unsuspend brings it back; both are sent as events', async () => {
    const subscription = await fresh()
    await expectFieldProblem(
      await act(billingSystem, subscription.id, 'suspend', { reason: '' }),
      422,
      'validation_failed',
      'body.reason',
      'too_short',
    )
    const suspended = await ok<Subscription>(
      await act(billingSystem, subscription.id, 'suspend', { reason: 'unpaid' }),
    )
    expect(suspended).toMatchObject({ status: 'suspended', suspendedReason: 'unpaid' })
    expect(suspended.suspendedAt).not.toBeNull()
    expect((await eventually('subscription.suspended', subscription.id)).data).toMatchObject({
      status: 'suspended',
      suspendedReason: 'unpaid',
    })
    const again = await expectProblem(
      await act(billingSystem, subscription.id, 'suspend', { reason: 'twice' }),
      409,
      'illegal_subscription_transition',
    )
    expect(again).toMatchObject({ status: 'suspended', requested: 'suspended' })
    const back = await ok<Subscription>(await act(billingSystem, subscription.id, 'unsuspend'))
    expect(back).toMatchObject({ status: 'active', suspendedReason: null, suspendedAt: null })
    await eventually('subscription.unsuspended', subscription.id)
  })

  test('unsuspending an active subscription and anything after cancelling are 409', async () => {
    const subscription = await fresh()
    await expectProblem(
      await act(billingSystem, subscription.id, 'unsuspend'),
      409,
      'illegal_subscription_transition',
    )
    const cancelled = await ok<Subscription>(await act(ownerToken, subscription.id, 'cancel'))
    expect(cancelled.status).toBe('cancelled')
    expect(Date.parse(cancelled.removalAt ?? '') - Date.parse(cancelled.cancelledAt ?? '')).toBe(
      720 * 3_600_000,
    )
    await eventually('subscription.cancelled', subscription.id)
    await expectProblem(
      await act(ownerToken, subscription.id, 'cancel'),
      409,
      'illegal_subscription_transition',
    )
    await expectProblem(
      await act(billingSystem, subscription.id, 'suspend', { reason: 'late' }),
      409,
      'illegal_subscription_transition',
    )
    await expectProblem(
      await tp.request('PATCH', `/api/v1/subscriptions/${subscription.id}`, {
        token: billingSystem,
        body: { planId: plan.id, status: 'active' },
      }),
      409,
      'illegal_subscription_transition',
    )
  })

  test('members may cancel but not suspend or change plans (403 staff_only)', async () => {
    const subscription = await fresh()
    await expectProblem(await act(ownerToken, subscription.id, 'suspend', { reason: 'x' }), 403, 'staff_only')
    await expectProblem(await act(ownerToken, subscription.id, 'unsuspend'), 403, 'staff_only')
    await expectProblem(
      await tp.request('PATCH', `/api/v1/subscriptions/${subscription.id}`, {
        token: ownerToken,
        body: { status: 'past_due' },
      }),
      403,
      'staff_only',
    )
  })

  test('changing plan moves to another plan of the brand; another brand’s plan is 422', async () => {
    const subscription = await fresh()
    const bigger = await created<Plan>(
      await tp.request('POST', '/api/v1/plans', {
        token: staffToken,
        body: { name: 'Bigger', limits: { sites: 9 } },
      }),
    )
    const moved = await ok<Subscription>(
      await tp.request('PATCH', `/api/v1/subscriptions/${subscription.id}`, {
        token: billingSystem,
        body: { planId: bigger.id },
      }),
    )
    expect(moved.planId).toBe(bigger.id)
    const brand = await created<{ id: string }>(
      await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Third' } }),
    )
    const foreign = await created<Plan>(
      await tp.request('POST', '/api/v1/plans', {
        token: staffToken,
        body: { name: 'Theirs', brandId: brand.id },
      }),
    )
    await expectFieldProblem(
      await tp.request('PATCH', `/api/v1/subscriptions/${subscription.id}`, {
        token: billingSystem,
        body: { planId: foreign.id },
      }),
      422,
      'unknown_plan',
      'body.planId',
    )
  })

  test('lists filter by customer, status and plan, and never widen the view', async () => {
    const suspended = await ok<Page<Subscription>>(
      await tp.request('GET', `/api/v1/subscriptions?customerId=${customerId}&status=cancelled&limit=100`, {
        token: billingSystem,
      }),
    )
    expect(suspended.items.length).toBeGreaterThan(0)
    expect(
      suspended.items.every((item) => item.status === 'cancelled' && item.customerId === customerId),
    ).toBe(true)
    const other = await newCustomer('Unseen')
    const limited = await tp.token({ customerId })
    const narrowed = await ok<Page<Subscription>>(
      await tp.request('GET', `/api/v1/subscriptions?customerId=${other}`, { token: limited }),
    )
    expect(narrowed.items).toEqual([])
  })
})
