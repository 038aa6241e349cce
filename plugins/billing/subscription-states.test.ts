// The subscription state table as docs/billing.md has it: moves by PATCH, suspend, unsuspend and cancel, each with
// its event, and every other move refused with 409 illegal_subscription_transition.

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

beforeAll(async () => {
  tp = await createTestPanel({ plugins: [recorder.plugin], events: { pollIntervalMs: 10 } })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken)
  billingSystem = await tp.token({ scopes: ['billing:read', 'billing:manage'] })
  customerId = await calls.newCustomer()
  plan = await calls.newPlan({ sites: 2 })
  const owner = await createTestUser(tp.panel.store.db, { email: 'owner@states.example', staffRole: null })
  await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
    token: staffToken,
    body: { email: owner.email, role: 'owner' },
  })
  ownerToken = await tp.token({ user: owner })
})
afterAll(() => tp.panel.close())

function fresh(): Promise<Subscription> {
  return calls.subscribe(customerId, plan.id, billingSystem)
}

function read(id: string): Promise<Subscription> {
  return tp.request('GET', `/api/v1/subscriptions/${id}`, { token: staffToken }).then(ok<Subscription>)
}

/** The kinds of the events sent about a subscription so far: the outbox is in order, so once a marker made now arrives. */
async function kindsAbout(id: string): Promise<string[]> {
  const marker = await fresh()
  await recorder.eventually('subscription.created', marker.id)
  return recorder.events.filter((event) => event.data.id === id).map((event) => event.kind)
}

describe('moves', () => {
  test('active → past_due → active with PATCH, each sent as subscription.updated', async () => {
    const subscription = await fresh()
    const late = await ok<Subscription>(
      await calls.patch(subscription.id, { status: 'past_due' }, billingSystem),
    )
    expect(late.status).toBe('past_due')
    const paid = await ok<Subscription>(
      await calls.patch(subscription.id, { status: 'active', externalId: 'stripe-sub-1' }, billingSystem),
    )
    expect(paid).toMatchObject({ status: 'active', externalId: 'stripe-sub-1' })
    expect((await recorder.eventually('subscription.updated', subscription.id)).kind).toBe(
      'subscription.updated',
    )
    const found = await ok<Page<Subscription>>(
      await tp.request('GET', '/api/v1/subscriptions?externalId=stripe-sub-1', { token: billingSystem }),
    )
    expect(found.items.map((item) => item.id)).toEqual([subscription.id])
  })

  test('suspend takes a reason; unsuspend brings it back; both are sent as events', async () => {
    const subscription = await fresh()
    await expectFieldProblem(
      await tp.request('POST', `/api/v1/subscriptions/${subscription.id}/suspend`, {
        token: billingSystem,
        body: { reason: '' },
      }),
      422,
      'validation_failed',
      'body.reason',
      'too_short',
    )
    const suspended = await ok<Subscription>(
      await calls.act(subscription.id, 'suspend', { token: billingSystem, reason: 'unpaid' }),
    )
    expect(suspended).toMatchObject({ status: 'suspended', suspendedReason: 'unpaid' })
    expect(suspended.suspendedAt).not.toBeNull()
    expect((await recorder.eventually('subscription.suspended', subscription.id)).data).toMatchObject({
      status: 'suspended',
      suspendedReason: 'unpaid',
    })
    const again = await expectProblem(
      await calls.act(subscription.id, 'suspend', { token: billingSystem, reason: 'twice' }),
      409,
      'illegal_subscription_transition',
    )
    expect(again).toMatchObject({ status: 409, currentStatus: 'suspended', requestedStatus: 'suspended' })
    const back = await ok<Subscription>(
      await calls.act(subscription.id, 'unsuspend', { token: billingSystem }),
    )
    expect(back).toMatchObject({ status: 'active', suspendedReason: null, suspendedAt: null })
    await recorder.eventually('subscription.unsuspended', subscription.id)
  })

  test('changing plan moves to another plan of the brand; another brand’s plan is 422', async () => {
    const subscription = await fresh()
    const bigger = await calls.newPlan({ sites: 9 })
    const moved = await ok<Subscription>(
      await calls.patch(subscription.id, { planId: bigger.id }, billingSystem),
    )
    expect(moved.planId).toBe(bigger.id)
    const brand = await created<{ id: string }>(
      await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Third' } }),
    )
    const foreign = await calls.newPlan({}, { brandId: brand.id })
    await expectFieldProblem(
      await calls.patch(subscription.id, { planId: foreign.id }, billingSystem),
      422,
      'unknown_plan',
      'body.planId',
    )
  })

  test('members may cancel but not suspend, unsuspend or change (403 staff_only)', async () => {
    const subscription = await fresh()
    await expectProblem(await calls.act(subscription.id, 'suspend', { token: ownerToken }), 403, 'staff_only')
    await expectProblem(
      await calls.act(subscription.id, 'unsuspend', { token: ownerToken }),
      403,
      'staff_only',
    )
    await expectProblem(
      await calls.patch(subscription.id, { status: 'past_due' }, ownerToken),
      403,
      'staff_only',
    )
    expect(
      (await ok<Subscription>(await calls.act(subscription.id, 'cancel', { token: ownerToken }))).status,
    ).toBe('cancelled')
  })
})

describe('refused moves', () => {
  test('unsuspending an active subscription and anything after cancelling are 409', async () => {
    const subscription = await fresh()
    await expectProblem(
      await calls.act(subscription.id, 'unsuspend', { token: billingSystem }),
      409,
      'illegal_subscription_transition',
    )
    const cancelled = await ok<Subscription>(
      await calls.act(subscription.id, 'cancel', { token: ownerToken }),
    )
    expect(cancelled.status).toBe('cancelled')
    expect(Date.parse(cancelled.removalAt ?? '') - Date.parse(cancelled.cancelledAt ?? '')).toBe(
      720 * 3_600_000,
    )
    await recorder.eventually('subscription.cancelled', subscription.id)
    await expectProblem(
      await calls.act(subscription.id, 'cancel', { token: ownerToken }),
      409,
      'illegal_subscription_transition',
    )
    await expectProblem(
      await calls.act(subscription.id, 'suspend', { token: billingSystem }),
      409,
      'illegal_subscription_transition',
    )
  })

  test('PATCH {status: "active"} of a suspended subscription is 409, not a way round unsuspend: it stays suspended with its reason, and only unsuspend sends subscription.unsuspended', async () => {
    const subscription = await fresh()
    await ok<Subscription>(
      await calls.act(subscription.id, 'suspend', { token: billingSystem, reason: 'unpaid' }),
    )
    for (const status of ['active', 'past_due']) {
      const refused = await expectProblem(
        await calls.patch(subscription.id, { status }, billingSystem),
        409,
        'illegal_subscription_transition',
      )
      expect(refused).toMatchObject({ status: 409, currentStatus: 'suspended', requestedStatus: status })
    }
    expect(await read(subscription.id)).toMatchObject({ status: 'suspended', suspendedReason: 'unpaid' })
    // A suspended subscription may still move to another plan; its state stays.
    const other = await calls.newPlan({ sites: 1 })
    const moved = await ok<Subscription>(
      await calls.patch(subscription.id, { planId: other.id }, billingSystem),
    )
    expect(moved).toMatchObject({ planId: other.id, status: 'suspended', suspendedReason: 'unpaid' })
    const back = await ok<Subscription>(
      await calls.act(subscription.id, 'unsuspend', { token: billingSystem }),
    )
    expect(back).toMatchObject({ status: 'active', suspendedReason: null })
    expect(await kindsAbout(subscription.id)).toEqual([
      'subscription.created',
      'subscription.suspended',
      'subscription.updated',
      'subscription.unsuspended',
    ])
  })

  test('any PATCH of a cancelled subscription is 409 (external id, the same plan, nothing at all) and sends no subscription.updated', async () => {
    const subscription = await fresh()
    await ok<Subscription>(await calls.act(subscription.id, 'cancel', { token: billingSystem }))
    for (const body of [{ externalId: 'late-id' }, { planId: plan.id }, { status: 'active' }, {}]) {
      const refused = await expectProblem(
        await calls.patch(subscription.id, body, billingSystem),
        409,
        'illegal_subscription_transition',
      )
      expect(refused).toMatchObject({ status: 409, currentStatus: 'cancelled' })
    }
    expect(await read(subscription.id)).toMatchObject({ status: 'cancelled', externalId: null })
    expect(await kindsAbout(subscription.id)).toEqual(['subscription.created', 'subscription.cancelled'])
  })
})
