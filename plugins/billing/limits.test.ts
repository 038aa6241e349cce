// Plan limits enforced on sites through the kernel's quota check: per limit codes, combined and changed plans,
// suspended customers, the installation's defaults, use beside limits, and creates racing for the last slot.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CustomerQuota, PluginDefinition } from '../../core/index.ts'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { databasesPlugin } from '../databases/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Plan, Subscription } from './contract.ts'
import { billingPlugin } from './index.ts'

const dataDir = () => mkdtempSync(join(tmpdir(), 'plinth-billing-'))
const plugins = (withBilling = true): PluginDefinition[] => [
  brandsPlugin(),
  customersPlugin(),
  nodesPlugin({ dataDir: dataDir() }),
  sitesPlugin(),
  databasesPlugin({ checkIntervalMs: 0 }),
  ...(withBilling ? [billingPlugin()] : []),
]

let tp: TestPanel
let staffToken: string
let sequence = 0

async function created<T>(response: Response): Promise<T> {
  expect(response.status).toBe(201)
  return (await response.json()) as T
}

async function customer(): Promise<string> {
  return (
    await created<{ id: string }>(
      await tp.request('POST', '/api/v1/customers', { token: staffToken, body: { name: 'C' } }),
    )
  ).id
}

async function plan(limits: Record<string, number>): Promise<Plan> {
  return created<Plan>(
    await tp.request('POST', '/api/v1/plans', { token: staffToken, body: { name: 'P', limits } }),
  )
}

async function subscribe(customerId: string, planId: string): Promise<Subscription> {
  return created<Subscription>(
    await tp.request('POST', '/api/v1/subscriptions', { token: staffToken, body: { customerId, planId } }),
  )
}

function createSite(
  customerId: string,
  extra: Record<string, unknown> = {},
  on: TestPanel = tp,
): Promise<Response> {
  return on.request('POST', '/api/v1/sites', {
    token: staffToken,
    body: { customerId, name: 'Site', type: 'wordpress', domain: `s${sequence++}.example.com`, ...extra },
  })
}

async function quotaOf(customerId: string, token = staffToken): Promise<CustomerQuota> {
  const response = await tp.request('GET', `/api/v1/usage?customerId=${customerId}`, { token })
  expect(response.status).toBe(200)
  const usage = (await response.json()) as { quota: CustomerQuota }
  return usage.quota
}

beforeAll(async () => {
  tp = await createTestPanel({ standard: false, plugins: plugins() })
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

describe('plan limits', () => {
  test('sites within the plan are created; one more is 422 site_limit_reached with the limit and use', async () => {
    const customerId = await customer()
    await subscribe(customerId, (await plan({ sites: 2 })).id)
    await created<Site>(await createSite(customerId))
    await created<Site>(await createSite(customerId))
    const refused = await expectProblem(await createSite(customerId), 422, 'site_limit_reached')
    expect(refused).toMatchObject({ metric: 'sites', limit: 2, used: 2, requested: 1 })
    const sites = (await (
      await tp.request('GET', `/api/v1/sites?customerId=${customerId}`, { token: staffToken })
    ).json()) as Page<Site>
    expect(sites.items).toHaveLength(2)
  })

  test('each site serves one domain: a plan with fewer domains than sites refuses with domain_limit_reached', async () => {
    const customerId = await customer()
    await subscribe(customerId, (await plan({ sites: 5, domains: 1 })).id)
    await created<Site>(await createSite(customerId))
    await expectProblem(await createSite(customerId), 422, 'domain_limit_reached')
  })

  test('limits of several live subscriptions add up; one without a limit lifts it', async () => {
    const customerId = await customer()
    await subscribe(customerId, (await plan({ sites: 1 })).id)
    await subscribe(customerId, (await plan({ sites: 1, diskMB: 10 })).id)
    expect((await quotaOf(customerId)).limits).toMatchObject({
      sites: { limit: 2, used: 0, available: 2 },
      diskMB: { limit: null },
    })
    await subscribe(customerId, (await plan({ databases: 1 })).id)
    expect((await quotaOf(customerId)).limits.sites?.limit).toBeNull()
  })

  test('changing a plan’s limits binds its subscribers at once', async () => {
    const customerId = await customer()
    const small = await plan({ sites: 1 })
    await subscribe(customerId, small.id)
    await created<Site>(await createSite(customerId))
    await expectProblem(await createSite(customerId), 422, 'site_limit_reached')
    await tp.request('PATCH', `/api/v1/plans/${small.id}`, {
      token: staffToken,
      body: { limits: { sites: 2 } },
    })
    await created<Site>(await createSite(customerId))
  })

  test('a customer whose subscriptions are all suspended creates nothing (422 customer_suspended)', async () => {
    const customerId = await customer()
    const subscription = await subscribe(customerId, (await plan({ sites: 5 })).id)
    await tp.request('POST', `/api/v1/subscriptions/${subscription.id}/suspend`, {
      token: staffToken,
      body: { reason: 'unpaid' },
    })
    await expectProblem(await createSite(customerId), 422, 'customer_suspended')
    expect((await quotaOf(customerId)).source).toBe('suspended')
    await tp.request('POST', `/api/v1/subscriptions/${subscription.id}/unsuspend`, { token: staffToken })
    await created<Site>(await createSite(customerId))
  })
})

describe('limits beside use', () => {
  test('a member sees its customer’s limits and use in capabilities and usage; staff name the customer', async () => {
    const customerId = await customer()
    await subscribe(customerId, (await plan({ sites: 3, domains: 3 })).id)
    await created<Site>(await createSite(customerId))
    const member = await createTestUser(tp.panel.store.db, {
      email: `m${sequence}@c.example`,
      staffRole: null,
    })
    await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
      token: staffToken,
      body: { email: member.email, role: 'billing' },
    })
    const memberToken = await tp.token({ user: member })
    const capabilities = (await (
      await tp.request('GET', '/api/v1/capabilities', { token: memberToken })
    ).json()) as {
      caller: { quota: CustomerQuota | null }
      limits: { defaultCustomerLimits: Record<string, number> }
    }
    const expected: CustomerQuota = {
      customerId,
      source: 'subscriptions',
      limits: {
        sites: { limit: 3, used: 1, available: 2 },
        domains: { limit: 3, used: 1, available: 2 },
        databases: { limit: null, used: 0, available: null },
        diskMB: { limit: null, used: 0, available: null },
      },
    }
    expect(capabilities.caller.quota).toEqual(expected)
    expect(capabilities.limits.defaultCustomerLimits).toEqual({})
    const usage = (await (await tp.request('GET', '/api/v1/usage', { token: memberToken })).json()) as {
      quota: CustomerQuota
    }
    expect(usage.quota).toEqual(expected)
    expect(await quotaOf(customerId)).toEqual(expected)
    const staffCapabilities = (await (
      await tp.request('GET', '/api/v1/capabilities', { token: staffToken })
    ).json()) as { caller: { quota: unknown } }
    expect(staffCapabilities.caller.quota).toBeNull()
    const staffUsage = (await (await tp.request('GET', '/api/v1/usage', { token: staffToken })).json()) as {
      quota: unknown
    }
    expect(staffUsage.quota).toBeNull()
  })

  test('usage of a customer outside the caller’s view is 404, like a missing one', async () => {
    const mine = await customer()
    const theirs = await customer()
    const limited = await tp.token({ customerId: mine })
    await expectProblem(
      await tp.request('GET', `/api/v1/usage?customerId=${theirs}`, { token: limited }),
      404,
      'not_found',
    )
  })
})

describe('creates racing for the last slot', () => {
  test('of ten concurrent requests for a plan’s last site exactly one is created', async () => {
    const customerId = await customer()
    await subscribe(customerId, (await plan({ sites: 3 })).id)
    await created<Site>(await createSite(customerId))
    await created<Site>(await createSite(customerId))
    const responses = await Promise.all(Array.from({ length: 10 }, () => createSite(customerId)))
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses).toEqual([201, ...Array(9).fill(422)])
    for (const response of responses.filter((r) => r.status === 422)) {
      expect(((await response.json()) as { code: string }).code).toBe('site_limit_reached')
    }
    expect((await quotaOf(customerId)).limits.sites).toEqual({ limit: 3, used: 3, available: 0 })
  })
})

describe('without subscriptions', () => {
  test('the installation’s default limits bind customers, and a panel without billing uses them too', async () => {
    for (const withBilling of [true, false]) {
      const panel = await createTestPanel({
        standard: false,
        plugins: plugins(withBilling),
        defaultCustomerLimits: { sites: 1 },
      })
      try {
        const token = await panel.token()
        const customerId = (
          await created<{ id: string }>(
            await panel.request('POST', '/api/v1/customers', { token, body: { name: 'Free' } }),
          )
        ).id
        const site = (n: number) =>
          panel.request('POST', '/api/v1/sites', {
            token,
            body: { customerId, name: 'Free', type: 'wordpress', domain: `free${n}.example.com` },
          })
        expect((await site(1)).status).toBe(201)
        await expectProblem(await site(2), 422, 'site_limit_reached')
        const usage = (await (
          await panel.request('GET', `/api/v1/usage?customerId=${customerId}`, { token })
        ).json()) as {
          quota: CustomerQuota
        }
        expect(usage.quota).toMatchObject({ source: 'default', limits: { sites: { limit: 1, used: 1 } } })
        const capabilities = (await (
          await panel.request('GET', '/api/v1/capabilities', { token })
        ).json()) as {
          limits: { defaultCustomerLimits: unknown }
        }
        expect(capabilities.limits.defaultCustomerLimits).toEqual({ sites: 1 })
      } finally {
        await panel.panel.close()
      }
    }
  })

  test('a fresh installation limits nothing', async () => {
    const customerId = await customer()
    for (let i = 0; i < 3; i++) await created<Site>(await createSite(customerId))
    expect((await quotaOf(customerId)).source).toBe('default')
  })
})
