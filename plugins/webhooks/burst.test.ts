// A burst does not build a queue: hundreds of events committed at once, to two real receivers on loopback that take
// a while to answer, are all delivered with the default limits: each endpoint gets as many attempts at once as its
// limit allows and never more, attempts start oldest first, a failed attempt is retried, and the loop claims and
// records deliveries many at a time rather than one by one (counted in statements, not timed).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  startWebhookReceiver,
  type TestPanel,
  type WebhookReceiver,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { webhooksPlugin } from './index.ts'
import type { WebhookDeliveriesTable, WebhooksTables } from './migrations.ts'
import { resolveSettings } from './options.ts'

const events = 300
const defaults = resolveSettings({})

/** A receiver that answers after `delayMs`, counting the requests open at once; `fail` answers 503 instead. */
function slowReceiver(delayMs: number, fail: (eventId: string, count: number) => boolean) {
  const receiver = startWebhookReceiver()
  const seen = new Map<string, number>()
  const state = { open: 0, most: 0 }
  receiver.answer(async (hook) => {
    state.open++
    state.most = Math.max(state.most, state.open)
    await Bun.sleep(delayMs)
    state.open--
    const id = String(hook.json.id)
    const count = (seen.get(id) ?? 0) + 1
    seen.set(id, count)
    return new Response(null, { status: fail(id, count) ? 503 : 204 })
  })
  return { receiver, state }
}

let tp: TestPanel
let customers: string[]
let statementsOnDeliveries = 0
let rows: WebhookDeliveriesTable[]
/** The events whose first attempt the flaky receiver refuses: every tenth. */
const flakyFirsts = new Set<string>()
const quick = slowReceiver(30, () => false)
// It must still get each of them, on the second attempt.
const flaky = slowReceiver(30, (id, count) => count === 1 && flakyFirsts.has(id))
const receivers: WebhookReceiver[] = [quick.receiver, flaky.receiver]

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      // The default limits (concurrency, per endpoint): the burst is measured against what deployments run.
      webhooksPlugin({ allowedHosts: ['127.0.0.1'], retryScheduleMs: [20] }),
    ],
    events: { pollIntervalMs: 10 },
  })
  const token = await tp.token()
  for (const receiver of receivers) {
    const response = await tp.request('POST', '/api/v1/webhooks', {
      token,
      body: { url: receiver.url, events: ['customer.created'] },
    })
    expect(response.status).toBe(201)
  }
  // Every event is committed before the panel starts: when it does, all of them are due at once.
  customers = []
  for (let i = 0; i < events; i += 25)
    customers.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(25, events - i) }, async (_, j) => {
          const response = await tp.request('POST', '/api/v1/customers', {
            token,
            body: { name: `Burst ${i + j}` },
          })
          expect(response.status).toBe(201)
          return ((await response.json()) as { id: string }).id
        }),
      )),
    )
  const outbox = await tp.panel.store.db
    .withTables<{ event_outbox: { id: string } }>()
    .selectFrom('event_outbox')
    .select('id')
    .orderBy('id')
    .execute()
  outbox.forEach((row, index) => {
    if (index % 10 === 0) flakyFirsts.add(row.id)
  })
  const stop = tp.panel.store.observeStatements((sql) => {
    if (/webhook_deliveries/.test(sql)) statementsOnDeliveries++
  })
  tp.panel.start()
  // Watched at the receivers, so the test's own reads of the table are not counted.
  await waitFor(
    'every event to reach both receivers',
    () =>
      quick.receiver.received.length === events &&
      flaky.receiver.received.length === events + flakyFirsts.size,
    15_000,
  )
  stop()
  rows = await waitFor('every delivery to be recorded as succeeded', async () => {
    const all = await tp.panel.store.db
      .withTables<WebhooksTables>()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .orderBy('id')
      .execute()
    return all.length === events * 2 && all.every((row) => row.status === 'succeeded') ? all : undefined
  })
})

afterAll(async () => {
  await tp.panel.close()
  for (const receiver of receivers) receiver.stop()
})

describe('a burst of events committed at once', () => {
  test('every event reaches each receiver, signed with its event id, a failed first attempt on its second', () => {
    for (const { receiver } of [quick, flaky]) {
      const ids = new Set(receiver.received.map((hook) => hook.json.data.id as string))
      expect([...ids].sort()).toEqual([...customers].sort())
    }
    // The quick receiver got each event once; the flaky one every tenth event twice (at least once, not lost).
    expect(quick.receiver.received).toHaveLength(events)
    expect(flaky.receiver.received).toHaveLength(events + flakyFirsts.size)
    for (const hook of flaky.receiver.received) expect(hook.headers['webhook-id']).toBe(String(hook.json.id))
  })

  test('each event is fanned out once per endpoint, and each delivery is attempted as often as it was answered', () => {
    const byEndpoint = Map.groupBy(rows, (row) => row.endpoint_id)
    expect(byEndpoint.size).toBe(2)
    for (const deliveries of byEndpoint.values())
      expect(new Set(deliveries.map((row) => row.event_id)).size).toBe(events)
    const attempts = rows.map((row) => row.attempts)
    expect(attempts.filter((n) => n === 2)).toHaveLength(flakyFirsts.size)
    expect(attempts.filter((n) => n === 1)).toHaveLength(events * 2 - flakyFirsts.size)
  })

  test('each endpoint gets as many attempts at once as its limit allows, and never more', () => {
    expect(quick.state.most).toBe(defaults.perEndpointConcurrency)
    expect(flaky.state.most).toBe(defaults.perEndpointConcurrency)
  })

  test('first attempts start oldest first: in the order the events were committed', () => {
    for (const deliveries of Map.groupBy(rows, (row) => row.endpoint_id).values()) {
      const byEvent = deliveries
        .filter((row) => row.attempts === 1)
        .sort((a, b) => (a.event_id < b.event_id ? -1 : 1))
        .map((row) => row.last_attempt_at ?? '')
      expect(byEvent).toEqual([...byEvent].sort())
    }
  })

  test('claims and records take many deliveries at a time, not one statement each', () => {
    // One by one, each attempt would cost a claim of its own (endpoints waiting, their attempts in flight, the
    // select and the update that claim) and its record: five statements. Taken together, the record of each
    // attempt is about all that remains per attempt (about 1.2 on SQLite).
    const deliveries = rows.reduce((sum, row) => sum + row.attempts, 0)
    expect(statementsOnDeliveries).toBeLessThan(deliveries * 2)
  })
})
