// Webhooks with two panel instances on one store (the engine of the run), and a real receiver on loopback: every
// event written on either instance reaches the receiver exactly once; an endpoint never has more attempts in flight
// than its limit, counted across both instances; and an attempt a stopping instance gives back is sent by the other
// at once, though that one polls only once a minute.

import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import {
  createTestPanel,
  startWebhookReceiver,
  type TestPanel,
  temporaryDataDir,
  type WebhookReceiver,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { webhooksPlugin } from './index.ts'
import type { WebhooksTables } from './migrations.ts'
import type { WebhooksOptions } from './options.ts'

const opened: TestPanel[] = []
const receivers: WebhookReceiver[] = []

afterEach(async () => {
  for (const tp of opened.splice(0)) await tp.panel.close()
  for (const receiver of receivers.splice(0)) receiver.stop()
})

/** Two instances of one installation on a fresh store, with these webhooks options (and the panel's timings). */
async function twoInstances(
  options: [WebhooksOptions, WebhooksOptions],
  events = { pollIntervalMs: 10 },
): Promise<[TestPanel, TestPanel]> {
  const storePath = join(temporaryDataDir(), 'plinth.sqlite')
  for (const webhooks of options)
    opened.push(
      await createTestPanel({
        standard: false,
        plugins: [
          brandsPlugin(),
          customersPlugin(),
          webhooksPlugin({ allowedHosts: ['127.0.0.1'], ...webhooks }),
        ],
        storePath,
        events,
      }),
    )
  return [opened[0], opened[1]] as [TestPanel, TestPanel]
}

function receiver(): WebhookReceiver {
  const started = startWebhookReceiver()
  receivers.push(started)
  return started
}

/** Registers an endpoint for `customer.created` at `url`, through `tp`. */
async function subscribe(tp: TestPanel, url: string): Promise<void> {
  const response = await tp.request('POST', '/api/v1/webhooks', {
    token: await tp.token(),
    body: { url, events: ['customer.created'] },
  })
  expect(response.status).toBe(201)
}

/** Creates `count` customers, alternating between the instances, a few at a time; answers their ids. */
async function createCustomers(instances: readonly TestPanel[], count: number): Promise<string[]> {
  const tokens: string[] = []
  for (const tp of instances) tokens.push(await tp.token())
  const create = async (i: number) => {
    const tp = instances[i % instances.length] as TestPanel
    const response = await tp.request('POST', '/api/v1/customers', {
      token: tokens[i % instances.length],
      body: { name: `Customer ${i}` },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }
  const ids: string[] = []
  for (let i = 0; i < count; i += 4)
    ids.push(...(await Promise.all([i, i + 1, i + 2, i + 3].filter((n) => n < count).map(create))))
  return ids
}

function deliveries(tp: TestPanel) {
  return tp.panel.store.db.withTables<WebhooksTables>().selectFrom('webhook_deliveries').selectAll().execute()
}

describe('two instances on one store', () => {
  test('every event written on either instance reaches the receiver exactly once', async () => {
    const [a, b] = await twoInstances([{ pollIntervalMs: 10 }, { pollIntervalMs: 10 }])
    const hooks = receiver()
    await subscribe(a, hooks.url)
    a.panel.start()
    b.panel.start()
    const customers = await createCustomers([a, b], 24)
    await waitFor(
      'every delivery to succeed',
      async () => {
        const rows = await deliveries(b)
        return rows.length === customers.length && rows.every((row) => row.status === 'succeeded')
      },
      15_000,
    )
    const received = hooks.received.map((hook) => hook.json.data.id as string)
    expect(received.sort()).toEqual([...customers].sort())
    // One attempt each: no event fanned out twice, no attempt made by both instances.
    const webhookIds = hooks.received.map((hook) => hook.headers['webhook-id'])
    expect(new Set(webhookIds).size).toBe(customers.length)
    expect((await deliveries(a)).every((row) => row.attempts === 1)).toBe(true)
  })

  test('an endpoint has at most perEndpointConcurrency attempts in flight, counted across both instances', async () => {
    const limits = { pollIntervalMs: 10, concurrency: 8, perEndpointConcurrency: 2 }
    const [a, b] = await twoInstances([limits, limits])
    const hooks = receiver()
    let inFlight = 0
    let most = 0
    hooks.answer(async () => {
      inFlight++
      most = Math.max(most, inFlight)
      // Long enough that both instances have claimed all they would while these are open.
      await Bun.sleep(150)
      inFlight--
      return new Response(null, { status: 204 })
    })
    await subscribe(a, hooks.url)
    a.panel.start()
    b.panel.start()
    const customers = await createCustomers([a, b], 12)
    await waitFor(
      'every delivery to succeed',
      async () => {
        const rows = await deliveries(a)
        return rows.length === customers.length && rows.every((row) => row.status === 'succeeded')
      },
      15_000,
    )
    expect(hooks.received).toHaveLength(customers.length)
    // The limit was reached, and never passed, though each instance alone would have allowed it.
    expect(most).toBe(2)
  })

  test('an attempt given back by a stopping instance is sent by the other at once, though it polls once a minute', async () => {
    const [a, b] = await twoInstances(
      [
        { pollIntervalMs: 10, shutdownGraceMs: 20, timeoutMs: 10_000 },
        { pollIntervalMs: 60_000, timeoutMs: 10_000 },
      ],
      { pollIntervalMs: 60_000 },
    )
    const hooks = receiver()
    // The first request hangs past a's grace period; later ones are answered at once.
    hooks.answer(async (_hook, count) => {
      if (count === 1) await Bun.sleep(1_000)
      return new Response(null, { status: 204 })
    })
    await subscribe(a, hooks.url)
    a.panel.start()
    const [customer] = await createCustomers([a], 1)
    await hooks.waitFor(() => true)
    // b starts while a's attempt is in flight: the delivery is a's claim, and b leaves it.
    b.panel.start()
    await Bun.sleep(100)
    expect(hooks.received).toHaveLength(1)
    // a stops and gives the attempt back; b polls once a minute, so only a's notice can wake it.
    await a.panel.close()
    opened.splice(opened.indexOf(a), 1)
    const resent = await hooks.waitFor((hook) => hook !== hooks.received[0], 5_000)
    expect(resent.json.data.id).toBe(customer)
    expect(resent.headers['webhook-id']).toBe(hooks.received[0]?.headers['webhook-id'])
    const row = await waitFor('b to record its attempt', async () => {
      const [delivery] = await deliveries(b)
      return delivery?.status === 'succeeded' ? delivery : undefined
    })
    // The attempt a gave back was not counted; b's was.
    expect(row.attempts).toBe(1)
  })
})
