// At least once across crashes: a dead worker's claimed delivery is taken over when its lease runs out, a stopping
// panel gives back the attempts it abandons, and a panel restarted on the same store sends what was still queued.

import { afterAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import {
  createTestPanel,
  startWebhookReceiver,
  type TestPanel,
  temporaryDataDir,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import type { WebhookWithSecret } from './contract.ts'
import { webhooksPlugin } from './index.ts'
import type { WebhookDeliveriesTable, WebhooksTables } from './migrations.ts'
import type { WebhooksOptions } from './options.ts'

const receivers: { stop(): void }[] = []
afterAll(() => {
  for (const receiver of receivers) receiver.stop()
})

function receiver() {
  const started = startWebhookReceiver()
  receivers.push(started)
  return started
}

const plugins = (options: WebhooksOptions = {}) => [
  brandsPlugin(),
  customersPlugin(),
  webhooksPlugin({ allowedHosts: ['127.0.0.1'], pollIntervalMs: 10, ...options }),
]

describe('claims', () => {
  test('a delivery claimed by a worker that died is taken over once the claim runs out, and sent', async () => {
    const tp = await createTestPanel({ standard: false, plugins: plugins(), events: { pollIntervalMs: 10 } })
    const token = await tp.token()
    const hooks = receiver()
    const endpoint = (await (
      await tp.request('POST', '/api/v1/webhooks', {
        token,
        body: { url: hooks.url, events: ['customer.created'] },
      })
    ).json()) as WebhookWithSecret
    await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
    // Fan the event out without starting delivery, then claim the delivery as a worker that then died.
    tp.panel.start()
    const table = () => tp.panel.store.db.withTables<WebhooksTables>()
    const deadline = Date.now() + 5_000
    let delivery = await table().selectFrom('webhook_deliveries').selectAll().executeTakeFirst()
    while (!delivery && Date.now() < deadline) {
      await Bun.sleep(1)
      delivery = await table().selectFrom('webhook_deliveries').selectAll().executeTakeFirst()
    }
    expect(delivery).toBeDefined()
    await hooks.waitFor(() => true)
    // Now make it look as if a dead worker held a later attempt: pending, claimed by someone else, lease over.
    await table()
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        next_attempt_at: new Date(Date.now() - 1_000).toISOString(),
        claim_owner: 'whw_dead',
        claimed_until: new Date(Date.now() + 300).toISOString(),
      })
      .execute()
    const before = hooks.received.length
    await Bun.sleep(100)
    // Still within the dead worker's lease: nobody else may send it.
    expect(hooks.received).toHaveLength(before)
    const taken = await hooks.waitFor((_hook) => hooks.received.length > before, 3_000)
    expect(new StandardWebhook(endpoint.secret).verify(taken.body, taken.headers)).toEqual(taken.json)
    await tp.panel.close()
  })
})

/**
 * A panel on the store at `path` (a SQLite file, or on PostgreSQL a schema named after it), as a restarted server
 * would open it (the same panel secret each time).
 */
function openPanel(path: string, options: WebhooksOptions = {}): Promise<TestPanel> {
  return createTestPanel({
    standard: false,
    plugins: plugins(options),
    storePath: path,
    events: { pollIntervalMs: 10 },
  })
}

/** Sends a staff request to `tp` at `path` below the API base. */
function staffRequest(tp: TestPanel, token: string, method: string, path: string, body?: unknown) {
  return tp.request(method, `/api/v1${path}`, { token, body })
}

/**
 * The delivery rows in the store at `path`, read after every panel on it has closed: through a panel opened on it
 * and never started, as the next start would see them (on either engine).
 */
async function deliveryRows(path: string): Promise<WebhookDeliveriesTable[]> {
  const reader = await openPanel(path)
  try {
    return await reader.panel.store.db
      .withTables<WebhooksTables>()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .orderBy('id')
      .execute()
  } finally {
    await reader.panel.close()
  }
}

describe('restarts', () => {
  test('deliveries still queued when a panel stops are sent by the next panel on the same store', async () => {
    const path = join(temporaryDataDir(), 'plinth.sqlite')
    const hooks = receiver()
    // The first panel cannot reach the receiver yet: it answers 503, and the retry is far off.
    hooks.answer(503)
    const first = await openPanel(path, { retryScheduleMs: [60_000] })
    const token = await first.token()
    const endpoint = (await (
      await staffRequest(first, token, 'POST', '/webhooks', { url: hooks.url, events: ['customer.created'] })
    ).json()) as WebhookWithSecret
    first.panel.start()
    await staffRequest(first, token, 'POST', '/customers', { name: 'Before the restart' })
    const original = await hooks.waitFor(() => true)
    await first.panel.close()
    expect(hooks.received).toHaveLength(1)
    const [queued] = await deliveryRows(path)
    expect(queued).toMatchObject({ status: 'pending', attempts: 1, claim_owner: null })

    // The receiver recovers; a new panel on the same file sends the delivery once it is due.
    hooks.answer(204)
    const second = await openPanel(path)
    await second.panel.store.db
      .withTables<WebhooksTables>()
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date().toISOString() })
      .where('status', '=', 'pending')
      .execute()
    second.panel.start()
    const resent = await hooks.waitFor((hook) => hook !== original)
    expect(resent.headers['webhook-id']).toBe(original.headers['webhook-id'])
    expect(new StandardWebhook(endpoint.secret).verify(resent.body, resent.headers)).toEqual(resent.json)
    await second.panel.close()
    expect((await deliveryRows(path))[0]).toMatchObject({ status: 'succeeded', attempts: 2 })
  })

  test('an attempt still running when the grace period ends is given back, due at once, not counted', async () => {
    const path = join(temporaryDataDir(), 'plinth.sqlite')
    const hooks = receiver()
    hooks.answer(async () => {
      await Bun.sleep(3_000)
      return new Response(null, { status: 204 })
    })
    const tp = await openPanel(path, { shutdownGraceMs: 50, timeoutMs: 10_000 })
    const token = await tp.token()
    await staffRequest(tp, token, 'POST', '/webhooks', { url: hooks.url, events: ['customer.created'] })
    await staffRequest(tp, token, 'POST', '/customers', { name: 'Slow' })
    tp.panel.start()
    await hooks.waitFor(() => true)
    const stopping = performance.now()
    await tp.panel.close()
    // The grace period, not the receiver's 3 s, decided when the panel stopped.
    expect(performance.now() - stopping).toBeLessThan(2_000)
    const [row] = await deliveryRows(path)
    expect(row).toMatchObject({ status: 'pending', attempts: 0, claim_owner: null, claimed_until: null })
  })
})
