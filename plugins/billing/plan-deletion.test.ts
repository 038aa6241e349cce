// DELETE /api/v1/plans/{id} as staff see it: a plan no subscription holds goes (204, then 404, audited, plan.deleted);
// one held by a subscription that has not ended (active, suspended, or cancelled within its grace period) is
// refused with 409 plan_in_use naming the subscriptions, and stays.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { billingPlugin } from './index.ts'
import { billingCalls, created, eventRecorder, ok } from './testing/billing-calls.ts'

/** Between a cancellation and the removal of the customer's resources: long enough to be refused in between. */
const graceMs = 1_000
const recorder = eventRecorder()

let tp: TestPanel
let staffToken: string
let calls: ReturnType<typeof billingCalls>

const remove = (id: string, token = staffToken) => tp.request('DELETE', `/api/v1/plans/${id}`, { token })

async function status(path: string): Promise<number> {
  return (await tp.request('GET', path, { token: staffToken })).status
}

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      billingPlugin({ removalGraceHours: graceMs / 3_600_000 }),
      recorder.plugin,
    ],
    events: { pollIntervalMs: 10 },
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  calls = billingCalls(tp, staffToken)
})
afterAll(() => tp.panel.close())

describe('deleting a plan', () => {
  test('a plan no subscription holds is deleted: 204, then 404, audited as plan.delete, plan.deleted sent', async () => {
    const plan = await calls.newPlan({})
    const response = await remove(plan.id)
    expect(response.status).toBe(204)
    expect(await status(`/api/v1/plans/${plan.id}`)).toBe(404)
    const audit = await ok<Page<{ action: string; details: Record<string, unknown> }>>(
      await tp.request('GET', `/api/v1/audit?subject=${plan.id}`, { token: staffToken }),
    )
    expect(audit.items.map((entry) => entry.action)).toEqual(['plan.delete', 'plan.create'])
    expect(audit.items[0]?.details).toEqual({ name: plan.name })
    expect((await recorder.eventually('plan.deleted', plan.id)).data).toEqual(plan)
    await expectProblem(await remove(plan.id), 404, 'not_found')
  })

  test('an active, then suspended subscription keeps its plan: 409 plan_in_use naming the subscriptions', async () => {
    const plan = await calls.newPlan({})
    const subscription = await calls.subscribe(await calls.newCustomer(), plan.id)
    await calls.subscribe(await calls.newCustomer(), plan.id)
    const body = await expectProblem(await remove(plan.id), 409, 'plan_in_use')
    expect(body.blockers).toEqual([{ name: 'subscriptions', count: 2 }])
    expect(body.detail).toContain('subscriptions (2)')
    expect((await calls.act(subscription.id, 'suspend')).status).toBe(200)
    expect((await expectProblem(await remove(plan.id), 409, 'plan_in_use')).blockers).toEqual([
      { name: 'subscriptions', count: 2 },
    ])
    expect(await status(`/api/v1/plans/${plan.id}`)).toBe(200)
    expect(recorder.events.some((event) => event.kind === 'plan.deleted' && event.data.id === plan.id)).toBe(
      false,
    )
  })

  test('a cancelled subscription keeps its plan until the customer’s resources are removed, then the plan can go', async () => {
    const plan = await calls.newPlan({})
    const subscription = await calls.subscribe(await calls.newCustomer(), plan.id)
    expect((await calls.act(subscription.id, 'cancel')).status).toBe(200)
    await expectProblem(await remove(plan.id), 409, 'plan_in_use')
    const deadline = Date.now() + graceMs + 5_000
    for (;;) {
      const response = await remove(plan.id)
      if (response.status === 204) break
      await expectProblem(response, 409, 'plan_in_use')
      if (Date.now() > deadline) throw new Error('the plan was never released')
      await Bun.sleep(50)
    }
    expect(await status(`/api/v1/plans/${plan.id}`)).toBe(404)
    // The ended subscription is kept, with the plan's id.
    expect(
      (
        await ok<{ planId: string }>(
          await tp.request('GET', `/api/v1/subscriptions/${subscription.id}`, { token: staffToken }),
        )
      ).planId,
    ).toBe(plan.id)
  })

  test('without plan:manage the deletion is 403; another brand’s plan is 404 to brand staff', async () => {
    const plan = await calls.newPlan({})
    const reader = await tp.token({ scopes: ['plan:read'] })
    await expectProblem(await remove(plan.id, reader), 403, 'insufficient_scope')
    const brand = await created<{ id: string }>(
      await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Elsewhere' } }),
    )
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: 'plans@elsewhere.example',
      staffRole: 'brand',
      brandId: brand.id,
    })
    await expectProblem(await remove(plan.id, await tp.token({ user: brandStaff })), 404, 'not_found')
    await expectProblem(await remove('pln_01J0000000000000000000000Z'), 404, 'not_found')
    expect(await status(`/api/v1/plans/${plan.id}`)).toBe(200)
  })
})
