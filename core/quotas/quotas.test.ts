// The quota check as a plugin author uses it, through a stand-in gadgets plugin (declaring a limited usage metric)
// and a stand-in billing plugin: defaults without billing, the billing slot's standing, the declared refusal.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Type as t } from '@sinclair/typebox'
import { definePlugin } from '../plugin/define-plugin.ts'
import { defineRoute, Reply } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { defineProblems } from '../problem/problem-code.ts'
import { createKernelTestPanel, type TestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { customerA, customerB, fixturePlugin, twoTenants } from '../testing/tenancy-fixture.ts'
import { type CustomerStanding, customerLimitsService } from './customer-limits.ts'
import type { CustomerQuota } from './quotas.ts'

/** What the stand-in billing plugin answers, per customer. */
const standings = new Map<string, CustomerStanding>()

const gadgetProblems = defineProblems({
  gadget_limit_reached: {
    status: 422,
    detail: 'The customer already has as many gadgets as its limits allow.',
    description: 'Creating the gadget would pass the customer’s `gadgets` limit.',
  },
})

/** A plugin as docs/plugin-authors.md shows it: a limited metric, reserved in the creating transaction, counted. */
const gadgets = fixturePlugin({
  description: 'Stands in for a plugin whose resources plans limit.',
  scopes: ['gadget:create'],
  problems: gadgetProblems,
  usage: [
    {
      name: 'gadgets',
      description: 'Gadgets of the customer.',
      quota: {
        description: 'How many gadgets the customer may have.',
        problem: gadgetProblems.gadget_limit_reached,
      },
    },
  ],
  tenants: twoTenants,
  routes: (context) => [
    defineRoute({
      method: 'POST',
      path: '/fixture-gadgets',
      operationId: 'createFixtureGadget',
      summary: 'Create a gadget (fixture)',
      idempotent: false,
      scope: 'gadget:create',
      body: t.Object({
        customerId: t.String({ maxLength: 64 }),
        count: t.Integer({ minimum: 1, maximum: 9 }),
      }),
      responses: { 201: { description: 'Reserved.' } },
      problems: [gadgetProblems.gadget_limit_reached, kernelProblems.customer_suspended],
      async handler({ body, audit }) {
        const quota = await context.transaction(async (trx) => {
          const reserved = await context.quotas.reserve(trx, {
            customerId: body.customerId,
            amounts: { gadgets: body.count },
          })
          await context.usage.adjust(trx, body.customerId, 'gadgets', body.count)
          await audit(trx, {
            action: 'gadget.create',
            subject: { type: 'gadget', id: 'g' },
            customerId: body.customerId,
          })
          return reserved
        })
        return Reply.created(quota, '/fixture-gadgets')
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/fixture-emit',
      operationId: 'emitFixtureEvent',
      summary: 'Emit an undeclared event through the plugin context (fixture)',
      scope: 'gadget:create',
      responses: { 204: { description: 'Emitted.' } },
      audited: false,
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
  return tp.request('POST', '/api/v1/fixture-gadgets', { token, body: { customerId, count } })
}

describe('without a billing plugin', () => {
  let tp: TestPanel
  let token: string
  beforeAll(async () => {
    tp = await createKernelTestPanel({ plugins: [gadgets], defaultCustomerLimits: { gadgets: 2 } })
    token = await tp.token()
  })
  afterAll(() => tp.panel.close())

  test('the installation’s defaults bind every customer; past them is 422 with the metric’s declared refusal', async () => {
    const response = await reserve(tp, token, customerA, 2)
    expect(response.status).toBe(201)
    expect(((await response.json()) as CustomerQuota).limits.gadgets).toEqual({
      limit: 2,
      used: 0,
      available: 2,
    })
    const refused = await expectProblem(await reserve(tp, token, customerA), 422, 'gadget_limit_reached')
    expect(refused).toMatchObject({ metric: 'gadgets', limit: 2, used: 2, requested: 1 })
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
    tp = await createKernelTestPanel({ plugins: [gadgets, billing], defaultCustomerLimits: { gadgets: 0 } })
    token = await tp.token()
  })
  afterAll(() => tp.panel.close())

  test('a subscribed customer is bound by its plans’ limits, not the defaults', async () => {
    standings.set(customerA, { kind: 'subscribed', limits: { gadgets: 1 } })
    const response = await reserve(tp, token, customerA)
    expect(response.status).toBe(201)
    expect(((await response.json()) as CustomerQuota).source).toBe('subscriptions')
    await expectProblem(await reserve(tp, token, customerA), 422, 'gadget_limit_reached')
  })

  test('a customer the slot leaves unbound falls back to the defaults', async () => {
    standings.set(customerB, { kind: 'none' })
    await expectProblem(await reserve(tp, token, customerB), 422, 'gadget_limit_reached')
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
    expect(usage.quota.limits.gadgets).toEqual({ limit: 0, used: 0, available: 0 })
  })
})

test('a panel refuses malformed default limits at start-up', async () => {
  await expect(
    createKernelTestPanel({ plugins: [gadgets], defaultCustomerLimits: { gadgets: -1 } }),
  ).rejects.toThrow(/at least 0/)
  // A limit no plugin declares is refused by name rather than silently ignored.
  await expect(
    createKernelTestPanel({ plugins: [gadgets], defaultCustomerLimits: { sprockets: 1 } }),
  ).rejects.toThrow(/Unknown limit "sprockets"; limits are gadgets/)
})

test('a resource limit’s declared range binds the default limits as it binds plans', async () => {
  const cpu = fixturePlugin({
    name: 'cpu-limits',
    description: 'Declares a limit on each of a customer’s resources, with the range it can apply.',
    resourceLimits: [{ name: 'cores', description: 'Cores of each gadget.', minimum: 1, maximum: 64 }],
  })
  await expect(
    createKernelTestPanel({ plugins: [cpu], defaultCustomerLimits: { cores: 0 } }),
  ).rejects.toThrow(/Limit cores must be a whole number of at least 1 and at most 64, not 0/)
  await expect(
    createKernelTestPanel({ plugins: [cpu], defaultCustomerLimits: { cores: 65 } }),
  ).rejects.toThrow(/at most 64/)
  const panel = await createKernelTestPanel({ plugins: [cpu], defaultCustomerLimits: { cores: 64 } })
  await panel.panel.close()
})

test('a limited metric must refuse with a problem its plugin declares', async () => {
  const stray = fixturePlugin({
    name: 'stray',
    description: 'Refuses with a problem of another plugin.',
    usage: [
      { name: 'gadgets', description: 'x', quota: { description: 'x', problem: kernelProblems.not_found } },
    ],
  })
  await expect(createKernelTestPanel({ plugins: [stray] })).rejects.toThrow(
    /does not declare in its problems/,
  )
})
