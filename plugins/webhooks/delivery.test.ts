// Delivery as an integration sees it: a real receiver on loopback gets site.created and job.finished, signed so the
// `standardwebhooks` library (written by others, to the spec) accepts them; retries, 410, rotation and redelivery.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type Page,
  startWebhookReceiver,
  type TestPanel,
  temporaryDataDir,
  type WebhookReceiver,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Webhook, WebhookDelivery, WebhookWithSecret } from './contract.ts'
import { webhooksPlugin } from './index.ts'
import type { WebhooksTables } from './migrations.ts'

let tp: TestPanel
let token: string
let receiver: WebhookReceiver

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: temporaryDataDir() }),
      sitesPlugin(),
      webhooksPlugin({
        allowedHosts: ['127.0.0.1'],
        retryScheduleMs: [30, 60],
        pollIntervalMs: 10,
        timeoutMs: 5_000,
        // Small limits, so the fairness test below needs only a few events to fill them.
        concurrency: 8,
        perEndpointConcurrency: 2,
      }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  token = await tp.token()
  receiver = startWebhookReceiver()
  tp.panel.start()
})
afterAll(async () => {
  await tp.panel.close()
  receiver.stop()
})

async function createEndpoint(body: Record<string, unknown>, as = token): Promise<WebhookWithSecret> {
  const response = await tp.request('POST', '/api/v1/webhooks', { token: as, body })
  expect(response.status).toBe(201)
  return (await response.json()) as WebhookWithSecret
}

async function createCustomer(name: string, brandId?: string): Promise<string> {
  const response = await tp.request('POST', '/api/v1/customers', {
    token,
    body: { name, ...(brandId ? { brandId } : {}) },
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

async function createSite(customerId: string): Promise<{ id: string; jobId: string }> {
  const response = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Blog',
      type: 'wordpress',
      domain: `s-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  expect(response.status).toBe(201)
  return (await response.json()) as { id: string; jobId: string }
}

async function deliveries(endpointId: string, query = ''): Promise<WebhookDelivery[]> {
  const response = await tp.request('GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100${query}`, {
    token,
  })
  expect(response.status).toBe(200)
  return [...((await response.json()) as Page<WebhookDelivery>).items]
}

/** Polls `read` until `done` holds, for up to 5 s. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`Condition not reached; last value: ${JSON.stringify(value)}`)
    await Bun.sleep(10)
  }
}

describe('delivery to a real receiver', () => {
  test('a new site reaches the receiver as site.created and job.finished, with valid Standard Webhooks signatures', async () => {
    const endpoint = await createEndpoint({ url: receiver.url, events: ['site.created', 'job.finished'] })
    const customerId = await createCustomer('Acme')
    const site = await createSite(customerId)
    const created = await receiver.waitFor(
      (hook) => hook.json.type === 'site.created' && hook.json.data.id === site.id,
    )
    const finished = await receiver.waitFor(
      (hook) => hook.json.type === 'job.finished' && hook.json.data.id === site.jobId,
    )
    const verifier = new StandardWebhook(endpoint.secret)
    for (const hook of [created, finished]) {
      expect(verifier.verify(hook.body, hook.headers)).toEqual(hook.json)
      expect(hook.headers['webhook-id']).toBe(hook.json.id)
      expect(hook.headers['content-type']).toBe('application/json')
      expect(hook.json.id).toMatch(/^evt_[0-9A-Z]{26}$/)
    }
    expect(created.json.data).toMatchObject({ id: site.id, customerId, status: 'provisioning' })
    expect(finished.json.data).toMatchObject({ id: site.jobId, status: 'succeeded', progress: 100 })
    // A signature made with another secret is refused by the same library: the check is real.
    expect(() =>
      new StandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(created.body, created.headers),
    ).toThrow()
    const log = await eventually(
      () => deliveries(endpoint.id),
      (items) => items.filter((item) => item.status === 'succeeded').length >= 2,
    )
    expect(log.find((item) => item.eventId === created.json.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
    })
    await tp.request('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token })
  })

  test('an endpoint receives only the kinds it subscribed to', async () => {
    const picky = startWebhookReceiver()
    const control = startWebhookReceiver()
    const endpoint = await createEndpoint({ url: picky.url, events: ['site.deleted'] })
    const controlEndpoint = await createEndpoint({ url: control.url, events: ['job.finished'] })
    const customerId = await createCustomer('Picky')
    const site = await createSite(customerId)
    // Events fan out in outbox order: once job.finished arrived, site.created was fanned out long before.
    await control.waitFor((hook) => hook.json.data.id === site.jobId)
    expect(await deliveries(endpoint.id)).toEqual([])
    expect(picky.received).toEqual([])
    picky.stop()
    control.stop()
    for (const id of [endpoint.id, controlEndpoint.id])
      await tp.request('DELETE', `/api/v1/webhooks/${id}`, { token })
  })

  test('a failing receiver is retried by the schedule until it answers 2xx', async () => {
    const flaky = startWebhookReceiver()
    flaky.answer((_request, count) => new Response(null, { status: count < 3 ? 500 : 200 }))
    const endpoint = await createEndpoint({ url: flaky.url, events: ['customer.created'] })
    await createCustomer('Flaky')
    const [delivery] = await eventually(
      () => deliveries(endpoint.id),
      (items) => items[0]?.status === 'succeeded',
    )
    expect(delivery).toMatchObject({ attempts: 3, lastStatusCode: 200, status: 'succeeded' })
    expect(flaky.received).toHaveLength(3)
    // Every attempt carries the same webhook-id, each its own timestamp and signature over the same body.
    expect(new Set(flaky.received.map((hook) => hook.headers['webhook-id'])).size).toBe(1)
    expect(new Set(flaky.received.map((hook) => hook.body)).size).toBe(1)
    flaky.stop()
  })

  test('a receiver that keeps failing ends failed after the last scheduled retry', async () => {
    const down = startWebhookReceiver()
    down.answer(503)
    const endpoint = await createEndpoint({ url: down.url, events: ['customer.created'] })
    await createCustomer('Down')
    const [delivery] = await eventually(
      () => deliveries(endpoint.id),
      (items) => items[0]?.status === 'failed',
    )
    // The schedule has two delays: three attempts in all.
    expect(delivery).toMatchObject({ attempts: 3, lastStatusCode: 503, nextAttemptAt: null })
    expect(delivery?.lastError).toBe('the endpoint answered 503')
    down.stop()
  })

  test('a 410 answer disables the endpoint, fails its pending deliveries, and is audited', async () => {
    const gone = startWebhookReceiver()
    gone.answer(410)
    const endpoint = await createEndpoint({ url: gone.url, events: ['customer.created'] })
    await createCustomer('Gone')
    const disabled = await eventually(
      async () =>
        (await (await tp.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token })).json()) as Webhook,
      (item) => item.enabled === false,
    )
    expect(disabled.disabledReason).toStartWith('the endpoint answered 410 Gone')
    const [delivery] = await deliveries(endpoint.id)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 })
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${endpoint.id}&action=webhook.disable`, { token })
    ).json()) as Page<{ actor: { userId: string | null } }>
    expect(audit.items).toHaveLength(1)
    // Nothing more is sent to a disabled endpoint.
    await createCustomer('Gone again')
    await Bun.sleep(60)
    expect(gone.received).toHaveLength(1)
    const redeliver = await tp.request(
      'POST',
      `/api/v1/webhooks/${endpoint.id}/deliveries/${delivery?.id}/redeliver`,
      { token },
    )
    await expectProblem(redeliver, 409, 'webhook_disabled')
    gone.stop()
  })

  test('redelivery sends the same event again with the same webhook-id and body', async () => {
    const again = startWebhookReceiver()
    const endpoint = await createEndpoint({ url: again.url, events: ['customer.created'] })
    await createCustomer('Again')
    const first = await again.waitFor(() => true)
    const [original] = await eventually(
      () => deliveries(endpoint.id),
      (items) => items[0]?.status === 'succeeded',
    )
    const response = await tp.request(
      'POST',
      `/api/v1/webhooks/${endpoint.id}/deliveries/${original?.id}/redeliver`,
      { token },
    )
    expect(response.status).toBe(201)
    const redelivery = (await response.json()) as WebhookDelivery
    expect(redelivery).toMatchObject({
      status: 'pending',
      redeliveryOf: original?.id,
      eventId: original?.eventId,
    })
    expect(response.headers.get('location')).toBe(
      `/api/v1/webhooks/${endpoint.id}/deliveries/${redelivery.id}`,
    )
    const second = await again.waitFor((hook) => hook !== first)
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id'])
    expect(second.body).toBe(first.body)
    expect(new StandardWebhook(endpoint.secret).verify(second.body, second.headers)).toEqual(first.json)
    again.stop()
  })

  test('after a rotation both secrets sign, so receivers on either secret accept the message', async () => {
    const rotating = startWebhookReceiver()
    const endpoint = await createEndpoint({ url: rotating.url, events: ['customer.created'] })
    const response = await tp.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token })
    expect(response.status).toBe(200)
    const rotated = (await response.json()) as WebhookWithSecret
    expect(rotated.secret).not.toBe(endpoint.secret)
    expect(Date.parse(rotated.previousSecretExpiresAt ?? '') - Date.now()).toBeGreaterThan(23 * 3_600_000)
    await createCustomer('Rotating')
    const hook = await rotating.waitFor(() => true)
    expect(hook.headers['webhook-signature']?.split(' ')).toHaveLength(2)
    expect(new StandardWebhook(endpoint.secret).verify(hook.body, hook.headers)).toEqual(hook.json)
    expect(new StandardWebhook(rotated.secret).verify(hook.body, hook.headers)).toEqual(hook.json)
    rotating.stop()
  })
})

describe('brands', () => {
  /** A new brand and a token of one of its staff. */
  async function brandWithStaff(): Promise<{ brand: { id: string }; brandToken: string }> {
    const brand = (await (
      await tp.request('POST', '/api/v1/brands', { token, body: { name: `Reseller ${crypto.randomUUID()}` } })
    ).json()) as { id: string }
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: `staff-${crypto.randomUUID()}@example.test`,
      staffRole: 'brand',
      brandId: brand.id,
    })
    return { brand, brandToken: await tp.token({ user: brandStaff }) }
  }

  test('a brand’s endpoint receives only events of that brand’s customers; platform endpoints receive all', async () => {
    const { brand, brandToken } = await brandWithStaff()
    const brandReceiver = startWebhookReceiver()
    const platformReceiver = startWebhookReceiver()
    const brandEndpoint = await createEndpoint(
      { url: brandReceiver.url, events: ['customer.created'] },
      brandToken,
    )
    expect(brandEndpoint.brandId).toBe(brand.id)
    await createEndpoint({ url: platformReceiver.url, events: ['customer.created'] })
    const ours = await createCustomer('Brand customer', brand.id)
    const theirs = await createCustomer('Default brand customer')
    await platformReceiver.waitFor((hook) => hook.json.data.id === ours)
    await platformReceiver.waitFor((hook) => hook.json.data.id === theirs)
    await brandReceiver.waitFor((hook) => hook.json.data.id === ours)
    await Bun.sleep(50)
    expect(brandReceiver.received.map((hook) => hook.json.data.id)).toEqual([ours])
    brandReceiver.stop()
    platformReceiver.stop()
  })

  test('the brand’s staff see its endpoint’s redeliveries and the panel’s own webhook.disable after a 410', async () => {
    const { brand, brandToken } = await brandWithStaff()
    const brandReceiver = startWebhookReceiver()
    const endpoint = await createEndpoint(
      { url: brandReceiver.url, events: ['customer.created'] },
      brandToken,
    )
    await createCustomer('Brand customer', brand.id)
    const [original] = await eventually(
      () => deliveries(endpoint.id),
      (items) => items[0]?.status === 'succeeded',
    )
    const redelivered = await tp.request(
      'POST',
      `/api/v1/webhooks/${endpoint.id}/deliveries/${original?.id}/redeliver`,
      { token: brandToken },
    )
    expect(redelivered.status).toBe(201)
    await eventually(
      () => deliveries(endpoint.id),
      (items) => items.length === 2 && items.every((item) => item.status === 'succeeded'),
    )
    brandReceiver.answer(410)
    await createCustomer('Brand customer gone', brand.id)
    await eventually(
      async () =>
        (await (await tp.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token })).json()) as Webhook,
      (item) => item.enabled === false,
    )
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${endpoint.id}`, { token: brandToken })
    ).json()) as Page<{ action: string; brandId: string | null; actor: { userId: string | null } }>
    expect(audit.items.map((entry) => entry.action)).toEqual([
      'webhook.disable',
      'webhook.redeliver',
      'webhook.create',
    ])
    expect(audit.items.every((entry) => entry.brandId === brand.id)).toBe(true)
    // The panel disabled it, not a person.
    expect(audit.items[0]?.actor.userId).toBeNull()
    brandReceiver.stop()
  })
})

describe('fairness and resilience', () => {
  test('after two rotations in a day, a receiver still on the first secret accepts every message', async () => {
    const rotating = startWebhookReceiver()
    const endpoint = await createEndpoint({ url: rotating.url, events: ['customer.created'] })
    for (let i = 0; i < 2; i++) {
      // The first answer is "lost": staff rotate again.
      expect(
        (await tp.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token })).status,
      ).toBe(200)
    }
    await createCustomer('Twice rotated')
    const hook = await rotating.waitFor(() => true)
    expect(hook.headers['webhook-signature']?.split(' ')).toHaveLength(3)
    expect(new StandardWebhook(endpoint.secret).verify(hook.body, hook.headers)).toEqual(hook.json)
    rotating.stop()
  })

  test('an endpoint that hangs does not hold up deliveries to the others', async () => {
    const hanging = startWebhookReceiver()
    hanging.answer(async () => {
      await Bun.sleep(3_000)
      return new Response(null, { status: 204 })
    })
    const healthy = startWebhookReceiver()
    const slow = await createEndpoint({ url: hanging.url, events: ['customer.created'] })
    const fast = await createEndpoint({ url: healthy.url, events: ['customer.created'] })
    const ids: string[] = []
    for (let i = 0; i < 12; i++) ids.push(await createCustomer(`Busy ${i}`))
    // The hanging endpoint holds at most its two (perEndpointConcurrency) of the eight workers: the rest deliver the
    // healthy endpoint's events meanwhile.
    for (const id of ids) await healthy.waitFor((hook) => hook.json.data.id === id, 2_000)
    expect(hanging.received.length).toBeLessThanOrEqual(2)
    for (const id of [slow.id, fast.id]) await tp.request('DELETE', `/api/v1/webhooks/${id}`, { token })
    hanging.stop()
    healthy.stop()
  })

  test('an attempt the panel itself cannot make is counted, so the delivery still ends', async () => {
    const target = startWebhookReceiver()
    const endpoint = await createEndpoint({ url: target.url, events: ['customer.created'] })
    // A secret the panel can no longer open (as after the panel secret changed).
    await tp.panel.store.db
      .withTables<WebhooksTables>()
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: 'v1.AAAA.AAAA' })
      .where('id', '=', endpoint.id)
      .execute()
    await createCustomer('Unsignable')
    const [delivery] = await eventually(
      () => deliveries(endpoint.id),
      (items) => items[0]?.status === 'failed',
    )
    expect(delivery?.attempts).toBe(3)
    expect(delivery?.lastError).toStartWith('the panel could not make the attempt')
    expect(target.received).toEqual([])
    target.stop()
  })

  test('a 410 from the old URL does not disable an endpoint whose URL staff changed meanwhile', async () => {
    const old = startWebhookReceiver()
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    old.answer(async () => {
      await released
      return new Response(null, { status: 410 })
    })
    const replacement = startWebhookReceiver()
    const endpoint = await createEndpoint({ url: old.url, events: ['customer.created'] })
    await createCustomer('Moving')
    await old.waitFor(() => true)
    const moved = await tp.request('PATCH', `/api/v1/webhooks/${endpoint.id}`, {
      token,
      body: { url: replacement.url },
    })
    expect(moved.status).toBe(200)
    release()
    const [delivery] = await eventually(
      () => deliveries(endpoint.id),
      (items) => items[0]?.status === 'failed',
    )
    expect(delivery?.lastStatusCode).toBe(410)
    const after = (await (
      await tp.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token })
    ).json()) as Webhook
    expect(after).toMatchObject({ enabled: true, disabledReason: null, url: replacement.url })
    old.stop()
    replacement.stop()
  })
})
