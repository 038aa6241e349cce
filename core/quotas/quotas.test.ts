// The quota check as a plugin author uses it, through a stand-in databases plugin and a stand-in billing plugin:
// defaults without billing, the billing slot's standing, codes and numbers of each refusal, and what plugins may emit.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { createTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { customerA, customerB, fixturePlugin, twoTenants } from '../testing/tenancy-fixture.ts'
import { adjustUsage } from '../usage/usage-counters.ts'
import { type CustomerStanding, customerLimitsService } from './customer-limits.ts'
import type { CustomerQuota } from './quotas.ts'

/** What the stand-in billing plugin answers, per customer. */
const standings = new Map<string, CustomerStanding>()

/** A databases plugin as docs/plugin-authors.md shows it: reserve in the creating transaction, then count. */
const databases = fixturePlugin({
  description: 'Stands in for a databases plugin.',
  scopes: ['site:create'],
  tenants: twoTenants,
  routes: (context) => [
    defineRoute({
      method: 'POST',
      path: '/fixture-databases',
      operationId: 'createFixtureDatabase',
      summary: 'Create a database (fixture)',
      scope: 'site:create',
      body: t.Object({
        customerId: t.String({ maxLength: 64 }),
        count: t.Integer({ minimum: 1, maximum: 9 }),
      }),
      responses: { 201: { description: 'Reserved.' } },
      async handler({ body }) {
        const quota = await context.transaction(async (trx) => {
          const reserved = await context.reserveQuota(trx, {
            customerId: body.customerId,
            amounts: { databases: body.count },
          })
          await adjustUsage(trx, body.customerId, 'databases', body.count)
          return reserved
        })
        return Reply.created(quota, '/fixture-databases')
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/fixture-emit',
      operationId: 'emitFixtureEvent',
      summary: 'Emit an undeclared event through the plugin context (fixture)',
      scope: 'site:create',
      responses: { 204: { description: 'Emitted.' } },
      async handler() {
        await context.transaction((trx) =>
          context.emit(trx, { kind: 'gadget.exploded', customerId: null, data: {} }),
        )
        return Reply.noContent()
      },
    }),
  ],
})

const billing = definePlugin({
  name: 'fixture-billing',
  version: '1.0.0',
  description: 'Stands in for the billing plugin: answers the standing the test sets.',
  setup(context) {
    context.provide(customerLimitsService, {
      standingOf: async (_db, customerId) => standings.get(customerId) ?? { kind: 'none' },
    })
  },
})

function reserve(tp: TestPanel, token: string, customerId: string, count = 1): Promise<Response> {
  return tp.request('POST', '/api/v1/fixture-databases', { token, body: { customerId, count } })
}

describe('without a billing plugin', () => {
  let tp: TestPanel
  let token: string
  beforeAll(async () => {
    tp = await createTestPanel({ plugins: [databases], defaultCustomerLimits: { databases: 2 } })
    token = await tp.token()
  })
  afterAll(() => tp.panel.close())

  test('the installation’s defaults bind every customer; past them is 422 database_limit_reached', async () => {
    const response = await reserve(tp, token, customerA, 2)
    expect(response.status).toBe(201)
    expect(((await response.json()) as CustomerQuota).limits.databases).toEqual({
      limit: 2,
      used: 0,
      available: 2,
    })
    const refused = await expectProblem(await reserve(tp, token, customerA), 422, 'database_limit_reached')
    expect(refused).toMatchObject({ metric: 'databases', limit: 2, used: 2, requested: 1 })
    expect((await reserve(tp, token, customerB, 2)).status).toBe(201)
  })

  test('a plugin context emits only its plugin’s declared event kinds', async () => {
    const response = await tp.request('POST', '/api/v1/fixture-emit', { token })
    expect(response.status).toBe(500)
  })
})

describe('with a billing plugin in the kernel.customerLimits slot', () => {
  let tp: TestPanel
  let token: string
  beforeAll(async () => {
    tp = await createTestPanel({ plugins: [databases, billing], defaultCustomerLimits: { databases: 0 } })
    token = await tp.token()
  })
  afterAll(() => tp.panel.close())

  test('a subscribed customer is bound by its plans’ limits, not the defaults', async () => {
    standings.set(customerA, { kind: 'subscribed', limits: { databases: 1 } })
    const response = await reserve(tp, token, customerA)
    expect(response.status).toBe(201)
    expect(((await response.json()) as CustomerQuota).source).toBe('subscriptions')
    await expectProblem(await reserve(tp, token, customerA), 422, 'database_limit_reached')
  })

  test('a customer the slot leaves unbound falls back to the defaults', async () => {
    standings.set(customerB, { kind: 'none' })
    await expectProblem(await reserve(tp, token, customerB), 422, 'database_limit_reached')
  })

  test('a suspended customer is refused with customer_suspended whatever its limits', async () => {
    standings.set(customerB, { kind: 'suspended' })
    await expectProblem(await reserve(tp, token, customerB), 422, 'customer_suspended')
    const usage = (await (
      await tp.request('GET', `/api/v1/usage?customerId=${customerB}`, { token })
    ).json()) as {
      quota: CustomerQuota
    }
    expect(usage.quota.source).toBe('suspended')
    expect(usage.quota.limits.sites).toEqual({ limit: 0, used: 0, available: 0 })
  })
})

test('a panel refuses malformed default limits at start-up', async () => {
  await expect(
    createTestPanel({ plugins: [databases], defaultCustomerLimits: { sites: -1 } }),
  ).rejects.toThrow(/at least 0/)
})
