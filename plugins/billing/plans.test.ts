// Plans as staff see them through /api/v1/plans: platform staff manage every brand's, brand staff only their own,
// members and customer tokens are kept out, limits are checked and change in place, and every change is an event.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import type { Plan } from './contract.ts'
import { eventRecorder } from './testing/billing-calls.ts'

const recorder = eventRecorder()

let tp: TestPanel
let staffToken: string
let brandToken: string
let otherBrand: string
let ownBrand: string

async function created<T>(response: Response): Promise<T> {
  expect(response.status).toBe(201)
  return (await response.json()) as T
}

function createPlan(token: string, body: Record<string, unknown>): Promise<Response> {
  return tp.request('POST', '/api/v1/plans', { token, body })
}

beforeAll(async () => {
  // The standard plugins (the databases plugin declares `databases`): plans limit whatever metrics plugins declare.
  tp = await createTestPanel({
    plugins: [recorder.plugin],
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  ownBrand = (
    await created<{ id: string }>(
      await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Own' } }),
    )
  ).id
  otherBrand = (
    await created<{ id: string }>(
      await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Other' } }),
    )
  ).id
  const brandStaff = await createTestUser(tp.panel.store.db, {
    email: 'plans@own.example',
    staffRole: 'brand',
    brandId: ownBrand,
  })
  brandToken = await tp.token({ user: brandStaff })
})
afterAll(() => tp.panel.close())

describe('plans', () => {
  test('platform staff create a plan with limits: 201, Location, and it reads back', async () => {
    const response = await createPlan(staffToken, {
      name: ' Starter ',
      description: 'One small site',
      brandId: ownBrand,
      limits: { sites: 1, domains: 1, diskMB: 1024 },
    })
    const plan = await created<Plan>(response)
    expect(plan).toMatchObject({
      brandId: ownBrand,
      name: 'Starter',
      description: 'One small site',
      limits: { sites: 1, domains: 1, diskMB: 1024 },
      status: 'active',
    })
    expect(plan.id).toMatch(/^pln_[0-9A-Z]{26}$/)
    expect(response.headers.get('location')).toBe(`/api/v1/plans/${plan.id}`)
    expect(await (await tp.request('GET', `/api/v1/plans/${plan.id}`, { token: staffToken })).json()).toEqual(
      plan,
    )
  })

  test('a plan without limits is unlimited, and belongs to the default brand unless told', async () => {
    const plan = await created<Plan>(await createPlan(staffToken, { name: 'Unlimited' }))
    expect(plan.limits).toEqual({})
    const brands = (await (
      await tp.request('GET', '/api/v1/brands?limit=100', { token: staffToken })
    ).json()) as Page<{
      id: string
      isDefault: boolean
    }>
    expect(plan.brandId).toBe(brands.items.find((brand) => brand.isDefault)?.id ?? '')
  })

  test('limits are whole numbers of at least 0 of known kinds (422 at the field)', async () => {
    await expectFieldProblem(
      await createPlan(staffToken, { name: 'Bad', limits: { diskMB: -1 } }),
      422,
      'validation_failed',
      'body.limits.diskMB',
      'out_of_range',
    )
    const unknown = await expectProblem(
      await createPlan(staffToken, { name: 'Bad', limits: { mailboxes: 3 } }),
      422,
      'validation_failed',
    )
    expect(unknown.errors?.[0]?.location).toBe('body.limits.mailboxes')
  })

  test('brand staff create plans for their brand only, and see only their brand’s plans', async () => {
    const own = await created<Plan>(
      await createPlan(brandToken, { name: 'Brand basic', limits: { sites: 3 } }),
    )
    expect(own.brandId).toBe(ownBrand)
    // A plan belongs to a brand and to no customer: its audit entries are the brand's, so its staff see them.
    const trail = (await (
      await tp.request('GET', `/api/v1/audit?subject=${own.id}`, { token: brandToken })
    ).json()) as Page<{ action: string }>
    expect(trail.items.map((entry) => entry.action)).toEqual(['plan.create'])
    await expectFieldProblem(
      await createPlan(brandToken, { name: 'Elsewhere', brandId: otherBrand }),
      422,
      'unknown_brand',
      'body.brandId',
    )
    const foreign = await created<Plan>(
      await createPlan(staffToken, { name: 'Other basic', brandId: otherBrand }),
    )
    await expectProblem(
      await tp.request('GET', `/api/v1/plans/${foreign.id}`, { token: brandToken }),
      404,
      'not_found',
    )
    await expectProblem(
      await tp.request('PATCH', `/api/v1/plans/${foreign.id}`, {
        token: brandToken,
        body: { name: 'Mine now' },
      }),
      404,
      'not_found',
    )
    const listed = (await (
      await tp.request('GET', '/api/v1/plans?limit=100', { token: brandToken })
    ).json()) as Page<Plan>
    expect(listed.items.length).toBeGreaterThan(0)
    expect(listed.items.every((plan) => plan.brandId === ownBrand)).toBe(true)
    const filtered = (await (
      await tp.request('GET', `/api/v1/plans?brandId=${otherBrand}`, { token: brandToken })
    ).json()) as Page<Plan>
    expect(filtered.items).toEqual([])
  })

  test('PATCH changes limits member by member (null removes one), the name, and archives', async () => {
    const plan = await created<Plan>(
      await createPlan(staffToken, { name: 'Grow', limits: { sites: 2, diskMB: 500 } }),
    )
    const response = await tp.request('PATCH', `/api/v1/plans/${plan.id}`, {
      token: staffToken,
      body: { name: 'Grow+', limits: { sites: 5, diskMB: null, databases: 2 }, status: 'archived' },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      name: 'Grow+',
      limits: { sites: 5, databases: 2 },
      status: 'archived',
    })
    const archived = (await (
      await tp.request('GET', '/api/v1/plans?status=archived', { token: staffToken })
    ).json()) as Page<Plan>
    expect(archived.items.map((item) => item.id)).toEqual([plan.id])
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${plan.id}`, { token: staffToken })
    ).json()) as Page<{ action: string }>
    expect(audit.items.map((entry) => entry.action)).toEqual(['plan.update', 'plan.create'])
  })

  test('creating and changing a plan send plan.created and plan.updated with the plan, so mirrors stay in sync', async () => {
    const plan = await created<Plan>(await createPlan(staffToken, { name: 'Synced', limits: { sites: 1 } }))
    expect((await recorder.eventually('plan.created', plan.id)).data).toEqual(plan)
    const changed = (await (
      await tp.request('PATCH', `/api/v1/plans/${plan.id}`, {
        token: staffToken,
        body: { limits: { sites: 2 } },
      })
    ).json()) as Plan
    const event = await recorder.eventually('plan.updated', plan.id)
    expect(event).toMatchObject({ customerId: null, data: changed })
    expect(changed.limits).toEqual({ sites: 2 })
  })

  test('plans are a staff area: members and customer-limited tokens get 403 staff_only', async () => {
    const customer = await created<{ id: string }>(
      await tp.request('POST', '/api/v1/customers', { token: staffToken, body: { name: 'Shop' } }),
    )
    const member = await createTestUser(tp.panel.store.db, { email: 'owner@shop.example', staffRole: null })
    await tp.request('POST', `/api/v1/customers/${customer.id}/members`, {
      token: staffToken,
      body: { email: member.email, role: 'owner' },
    })
    const memberToken = await tp.token({ user: member })
    await expectProblem(await tp.request('GET', '/api/v1/plans', { token: memberToken }), 403, 'staff_only')
    const limited = await tp.token({ customerId: customer.id })
    await expectProblem(await createPlan(limited, { name: 'Sneaky' }), 403, 'staff_only')
  })
})
