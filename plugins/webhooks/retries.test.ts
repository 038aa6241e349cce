// Failing, slow and redirecting receivers, simulated with msw at the fetch boundary, on the production settings
// (https, a public address, the default retry schedule): what each attempt records and when the next one is due.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { FetchInterceptor } from '@mswjs/interceptors/fetch/web'
import { delay, HttpResponse, http } from 'msw'
import { defineNetwork, InterceptorSource } from 'msw/experimental'
import { createTestPanel, type Page, type TestPanel } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import type { WebhookDelivery, WebhookWithSecret } from './contract.ts'
import { webhooksPlugin } from './index.ts'
import type { WebhooksTables } from './migrations.ts'
import { defaultRetryScheduleMs } from './retry.ts'

/** The receiver's public address: the guard resolves `hooks.example.com` to it, and delivery connects to it. */
const address = '93.184.216.34'
const pinned = `https://${address}/hook`
/** What the guard's resolver answers: tests rebind names to see what delivery does. */
const dns = new Map<string, string>()
/** Names whose lookups take 5 s, longer than the attempt timeout. */
const slowNames = new Set<string>()

// msw/node's default interceptors patch Node's net module, which Bun does not expose; the web fetch interceptor
// patches `fetch`, which is what the transport calls, so it sees exactly what would go on the wire.
const network = defineNetwork({
  // The web build's class is declared apart from the node build's, so TypeScript cannot match the two; they are
  // the same interceptor contract at run time.
  sources: [new InterceptorSource({ interceptors: [new FetchInterceptor() as never] })],
  onUnhandledFrame: 'error',
  context: { quiet: true },
})

let tp: TestPanel
let token: string

beforeAll(async () => {
  await network.enable()
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      webhooksPlugin({
        resolve: async (hostname) => {
          if (slowNames.has(hostname)) await Bun.sleep(5_000)
          const answer = dns.get(hostname)
          return answer ? [{ address: answer, family: 4 }] : []
        },
        pollIntervalMs: 10,
        timeoutMs: 200,
      }),
    ],
    events: { pollIntervalMs: 10 },
  })
  token = await tp.token()
  tp.panel.start()
})
/** Endpoints the current test made: removed after it, so the next test's events reach only its own. */
const made: string[] = []
beforeEach(() => {
  dns.set('hooks.example.com', address)
  slowNames.clear()
})
afterEach(async () => {
  for (const id of made.splice(0)) await tp.request('DELETE', `/api/v1/webhooks/${id}`, { token })
  network.resetHandlers()
})
afterAll(async () => {
  await tp.panel.close()
  await network.disable()
})

const deliveriesTable = () => tp.panel.store.db.withTables<WebhooksTables>()

async function endpointFor(events: string[]): Promise<WebhookWithSecret> {
  const response = await tp.request('POST', '/api/v1/webhooks', {
    token,
    body: { url: 'https://hooks.example.com/hook', events },
  })
  expect(response.status).toBe(201)
  const endpoint = (await response.json()) as WebhookWithSecret
  made.push(endpoint.id)
  return endpoint
}

async function createCustomer(): Promise<void> {
  const response = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  expect(response.status).toBe(201)
}

async function onlyDelivery(endpointId: string): Promise<WebhookDelivery> {
  const response = await tp.request('GET', `/api/v1/webhooks/${endpointId}/deliveries`, { token })
  const [delivery] = ((await response.json()) as Page<WebhookDelivery>).items
  if (!delivery) throw new Error('no delivery yet')
  return delivery
}

/** Waits until the delivery has made `attempts` attempts (and is not being attempted now). */
async function afterAttempts(endpointId: string, attempts: number): Promise<WebhookDelivery> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const delivery = await onlyDelivery(endpointId).catch(() => null)
    if (delivery && delivery.attempts >= attempts) return delivery
    if (Date.now() > deadline)
      throw new Error(`never reached ${attempts} attempts: ${JSON.stringify(delivery)}`)
    await Bun.sleep(5)
  }
}

/** Makes the next attempt due now, as if its delay had passed. */
async function timePasses(deliveryId: string): Promise<void> {
  await deliveriesTable()
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: new Date().toISOString() })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute()
}

describe('a receiver that keeps failing', () => {
  test('is retried by the default schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), then failed', async () => {
    const seen: { host: string | null; id: string | null }[] = []
    network.use(
      http.post(pinned, ({ request }) => {
        seen.push({ host: request.headers.get('host'), id: request.headers.get('webhook-id') })
        return new HttpResponse('down for maintenance', { status: 503 })
      }),
    )
    const endpoint = await endpointFor(['customer.created'])
    await createCustomer()
    const delays: number[] = []
    for (let attempt = 1; attempt <= defaultRetryScheduleMs.length; attempt++) {
      const delivery = await afterAttempts(endpoint.id, attempt)
      expect(delivery).toMatchObject({
        status: 'pending',
        lastStatusCode: 503,
        lastError: 'the endpoint answered 503',
      })
      delays.push(Date.parse(delivery.nextAttemptAt ?? '') - Date.parse(delivery.lastAttemptAt ?? ''))
      await timePasses(delivery.id)
    }
    const last = await afterAttempts(endpoint.id, defaultRetryScheduleMs.length + 1)
    expect(last).toMatchObject({ status: 'failed', attempts: 10, nextAttemptAt: null, lastStatusCode: 503 })
    // Each delay is its schedule entry within ±10 % jitter (plus the few ms the attempt itself took).
    delays.forEach((measured, index) => {
      const planned = defaultRetryScheduleMs[index] ?? 0
      expect(measured).toBeGreaterThanOrEqual(planned * 0.9)
      expect(measured).toBeLessThanOrEqual(planned * 1.1 + 1_000)
    })
    const total = delays.reduce((sum, value) => sum + value, 0)
    expect(total / 3_600_000).toBeGreaterThan(66)
    expect(total / 3_600_000).toBeLessThan(90)
    // Every attempt went to the checked address with the URL's host name, under the one webhook-id.
    expect(seen).toHaveLength(10)
    expect(new Set(seen.map((item) => `${item.host} ${item.id}`)).size).toBe(1)
    expect(seen[0]?.host).toBe('hooks.example.com')
  })
})

describe('attempts that do not get a 2xx', () => {
  test('a slow receiver is a timeout: no status, the error says so, and it is retried', async () => {
    network.use(
      http.post(pinned, async () => {
        await delay(2_000)
        return new HttpResponse(null, { status: 200 })
      }),
    )
    const endpoint = await endpointFor(['customer.created'])
    await createCustomer()
    const delivery = await afterAttempts(endpoint.id, 1)
    expect(delivery).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: 'no answer within 200 ms',
    })
    expect(delivery.lastResponseTimeMs).toBeGreaterThanOrEqual(190)
    expect(delivery.lastResponseTimeMs).toBeLessThan(2_000)
  })

  test('a redirect is not followed and counts as a failure', async () => {
    let followed = false
    network.use(
      http.post(
        pinned,
        () => new HttpResponse(null, { status: 302, headers: { location: 'https://elsewhere.example/' } }),
      ),
      http.post('https://elsewhere.example/', () => {
        followed = true
        return new HttpResponse(null, { status: 200 })
      }),
    )
    const endpoint = await endpointFor(['customer.created'])
    await createCustomer()
    const delivery = await afterAttempts(endpoint.id, 1)
    expect(delivery).toMatchObject({
      status: 'pending',
      lastStatusCode: 302,
      lastError: 'the endpoint answered 302; redirects are not followed',
    })
    expect(followed).toBe(false)
  })

  test('a network error records its message and is retried; the next 2xx succeeds', async () => {
    let calls = 0
    network.use(
      http.post(pinned, () => {
        calls += 1
        return calls === 1 ? HttpResponse.error() : new HttpResponse(null, { status: 202 })
      }),
    )
    const endpoint = await endpointFor(['customer.created'])
    await createCustomer()
    const failed = await afterAttempts(endpoint.id, 1)
    expect(failed.status).toBe('pending')
    expect(failed.lastStatusCode).toBeNull()
    expect(failed.lastError).not.toBeNull()
    await timePasses(failed.id)
    const succeeded = await afterAttempts(endpoint.id, 2)
    expect(succeeded).toMatchObject({
      status: 'succeeded',
      lastStatusCode: 202,
      lastError: null,
      nextAttemptAt: null,
    })
  })

  test('when DNS changes to a private address after saving, nothing is sent and the attempt fails', async () => {
    let sent = 0
    network.use(
      http.post(pinned, () => {
        sent += 1
        return new HttpResponse(null, { status: 200 })
      }),
    )
    const endpoint = await endpointFor(['customer.created'])
    // Rebinding: the name passed the guard when saved, and now resolves to a private address.
    dns.set('hooks.example.com', '10.0.0.7')
    await createCustomer()
    const delivery = await afterAttempts(endpoint.id, 1)
    expect(delivery.status).toBe('pending')
    expect(delivery.lastStatusCode).toBeNull()
    expect(delivery.lastError).toStartWith('webhook_address_not_public')
    expect(sent).toBe(0)
  })
})

describe('receivers and name servers that take their time', () => {
  test('a 429 with Retry-After is retried no sooner than asked (up to a day), never sooner than the schedule', async () => {
    network.use(
      http.post(pinned, () => new HttpResponse(null, { status: 429, headers: { 'retry-after': '3600' } })),
    )
    const endpoint = await endpointFor(['customer.created'])
    await createCustomer()
    const delivery = await afterAttempts(endpoint.id, 1)
    const delay = Date.parse(delivery.nextAttemptAt ?? '') - Date.parse(delivery.lastAttemptAt ?? '')
    expect(delay).toBeGreaterThanOrEqual(3_600_000)
    expect(delay).toBeLessThan(3_600_000 + 60_000)
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: 429 })
  })

  test('a name server slower than the timeout fails the attempt within it, once, and nothing is sent', async () => {
    let sent = 0
    network.use(
      http.post(pinned, () => {
        sent += 1
        return new HttpResponse(null, { status: 200 })
      }),
    )
    const endpoint = await endpointFor(['customer.created'])
    slowNames.add('hooks.example.com')
    await createCustomer()
    const delivery = await afterAttempts(endpoint.id, 1)
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null })
    expect(delivery.lastError).toBe(
      'webhook_host_unresolvable: the host hooks.example.com did not resolve in time',
    )
    expect(delivery.lastResponseTimeMs).toBeLessThan(2_000)
    expect(sent).toBe(0)
  })
})
