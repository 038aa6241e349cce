// The brand's billing system drives the panel with signed callbacks: signatures over the raw bytes, replays and
// undated callbacks refused or acknowledged, references checked, and announced plans sent as events.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { OutboxEvent } from '../../core/index.ts'
import { createTestPanel, expectProblem, type Page, type TestPanel } from '../../hosts/testing/index.ts'
import type { Plan, Subscription } from '../../plugins/billing/contract.ts'
import { billingSystem, planUpdate, subscriptionUpdate } from './billing-system.ts'
import { eventRecorder } from './event-recorder.ts'
import { externalBillingPlugin } from './index.ts'
import { signCallback } from './signature.ts'

const secret = 'shared-with-the-billing-system-0123456789'
const checkoutUrl = 'https://shop.brand.example/plans'
const recorder = eventRecorder()
const { events } = recorder

let tp: TestPanel
let staffToken: string
let system: ReturnType<typeof billingSystem>

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [recorder.plugin],
    overrides: [externalBillingPlugin({ secret, checkoutUrl })],
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staffToken = await tp.token()
  system = billingSystem((request) => tp.panel.handle(request), secret)
})
afterAll(() => tp.panel.close())

async function ok<T>(response: Response): Promise<T> {
  expect(response.status).toBe(200)
  return (await response.json()) as T
}

async function newCustomer(): Promise<string> {
  const response = await tp.request('POST', '/api/v1/customers', {
    token: staffToken,
    body: { name: 'Brand C' },
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
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

describe('checkout and signatures', () => {
  test('customers are sent to the brand’s shop: checkout is 403 checkout_external with checkoutUrl', async () => {
    const customerId = await newCustomer()
    const refused = await expectProblem(
      await tp.request('POST', '/api/v1/checkout', { token: staffToken, body: { customerId, planId: 'x' } }),
      403,
      'checkout_external',
    )
    expect((refused as unknown as { checkoutUrl: string }).checkoutUrl).toBe(checkoutUrl)
  })

  test('a wrong signature is 401 invalid_callback_signature; an old one 401 stale_callback', async () => {
    const plan = planUpdate('pkg-x', {}, 'X')
    await expectProblem(await system.send(plan, { key: 'not-the-secret' }), 401, 'invalid_callback_signature')
    await expectProblem(
      await tp.request('POST', '/api/v1/billing/callbacks', {
        body: JSON.stringify({ id: 'unsigned', ...plan }),
      }),
      401,
      'invalid_callback_signature',
    )
    await expectProblem(
      await system.send(plan, { at: Math.floor(Date.now() / 1000) - 600 }),
      401,
      'stale_callback',
    )
  })

  test('the signature covers the raw bytes: a BOM-prefixed body signed as sent is accepted, one signed without its BOM is refused', async () => {
    const text = JSON.stringify({
      id: 'evt-bom',
      occurredAt: new Date().toISOString(),
      ...planUpdate('pkg-bom', { sites: 1 }, 'BOM'),
    })
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)])
    const now = Math.floor(Date.now() / 1000)
    // Signed over the text the panel used to decode (BOM dropped): not what was sent.
    await expectProblem(
      await system.post(bytes, signCallback(secret, now, text)),
      401,
      'invalid_callback_signature',
    )
    expect(await ok(await system.post(bytes, signCallback(secret, now, bytes)))).toEqual({
      id: 'evt-bom',
      duplicate: false,
      stale: false,
    })
  })

  test('a body that is not UTF-8 is checked against its bytes, then refused as malformed (400), never mended', async () => {
    const text = JSON.stringify({
      id: 'evt-latin1',
      occurredAt: new Date().toISOString(),
      ...planUpdate('pkg-é', {}),
    })
    // Latin-1 bytes for "é": not UTF-8. Decoding would have turned them into U+FFFD and broken the MAC.
    const bytes = Uint8Array.from(Buffer.from(text, 'latin1'))
    const now = Math.floor(Date.now() / 1000)
    await expectProblem(await system.post(bytes, signCallback(secret, now, bytes)), 400, 'malformed_json')
  })
})

describe('replays', () => {
  test('a replayed callback is acknowledged as a duplicate and changes nothing', async () => {
    const raw = JSON.stringify({
      id: 'evt-replayed',
      occurredAt: new Date().toISOString(),
      ...planUpdate('pkg-replay', { sites: 1 }, 'Replay'),
    })
    expect(await ok(await system.send({}, { raw }))).toEqual({
      id: 'evt-replayed',
      duplicate: false,
      stale: false,
    })
    expect(await ok(await system.send({}, { raw }))).toEqual({
      id: 'evt-replayed',
      duplicate: true,
      stale: false,
    })
    const audit = await ok<Page<{ action: string }>>(
      await tp.request('GET', '/api/v1/audit?action=plan.create&limit=100', { token: staffToken }),
    )
    expect(audit.items.filter((entry) => JSON.stringify(entry).includes('evt-replayed'))).toHaveLength(1)
  })

  test('a callback without occurredAt, or with one that is not a date-time with a zone, is 422', async () => {
    const body = { id: 'evt-undated', ...planUpdate('pkg-undated', {}) }
    await expectProblem(await system.send({}, { raw: JSON.stringify(body) }), 422, 'validation_failed')
    const local = await expectProblem(
      await system.send({}, { raw: JSON.stringify({ ...body, occurredAt: '2025-01-31T12:00:00.000' }) }),
      422,
      'validation_failed',
    )
    expect(local.errors?.[0]?.location).toBe('body.occurredAt')
  })
})

describe('what callbacks change', () => {
  test('a subscription naming an unknown customer or plan is 422 unknown_callback_reference', async () => {
    await expectProblem(
      await system.send(
        subscriptionUpdate({
          externalId: 'svc-unknown',
          customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
          planExternalId: 'pkg-replay',
          status: 'active',
        }),
      ),
      422,
      'unknown_callback_reference',
    )
    await expectProblem(
      await system.send(
        subscriptionUpdate({
          externalId: 'svc-unknown',
          customerId: await newCustomer(),
          planExternalId: 'none',
          status: 'active',
        }),
      ),
      422,
      'unknown_callback_reference',
    )
  })

  test('a callback repeating a subscription’s state sends no event, and orders later callbacks after it', async () => {
    await ok(await system.send(planUpdate('pkg-again', { sites: 1 })))
    const customerId = await newCustomer()
    const state = (status: string, secondsAgo: number) => ({
      ...subscriptionUpdate({ externalId: 'svc-again', customerId, planExternalId: 'pkg-again', status }),
      occurredAt: new Date(Date.now() - secondsAgo * 1000).toISOString(),
    })
    expect(await ok(await system.send(state('active', 30)))).toMatchObject({ stale: false })
    expect(await ok(await system.send(state('active', 10)))).toMatchObject({ stale: false })
    // Sent between the two, received after both: older than the newest word on it, so ignored.
    expect(await ok(await system.send(state('suspended', 20)))).toMatchObject({ stale: true })
    const subscriptions = await ok<Page<Subscription>>(
      await tp.request('GET', `/api/v1/subscriptions?limit=100`, { token: staffToken }),
    )
    const subscription = subscriptions.items.find((item) => item.externalId === 'svc-again')
    expect(subscription?.status).toBe('active')
    const audit = await ok<Page<{ action: string }>>(
      await tp.request('GET', `/api/v1/audit?subject=${subscription?.id}`, { token: staffToken }),
    )
    expect(audit.items.map((entry) => entry.action)).toEqual(['subscription.confirm', 'subscription.create'])
    // Events leave in outbox order: once a later one is out, any of the subscription's would be too.
    await ok(await system.send(planUpdate('pkg-again', { sites: 2 })))
    await eventually('plan.updated', subscription?.planId ?? '')
    expect(events.filter((event) => event.data.id === subscription?.id).map((event) => event.kind)).toEqual([
      'subscription.created',
    ])
  })

  test('announced plans are sent as plan.created, then plan.updated, carrying the plan', async () => {
    await ok(await system.send(planUpdate('pkg-events', { sites: 1 }, 'Events')))
    await ok(await system.send(planUpdate('pkg-events', { sites: 2 }, 'Events')))
    const plans = await ok<Page<Plan>>(
      await tp.request('GET', '/api/v1/plans?limit=100', { token: staffToken }),
    )
    const plan = plans.items.find((item) => item.name === 'Events')
    expect((await eventually('plan.created', plan?.id ?? '')).data).toMatchObject({ limits: { sites: 1 } })
    expect((await eventually('plan.updated', plan?.id ?? '')).data).toEqual(plan as Plan)
  })
})
