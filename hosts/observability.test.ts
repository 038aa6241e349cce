// The standard host's logs and metrics on the standard plugins, in process: the request line's fields for a real
// request, webhook deliveries counted and their failures logged with their ids, and no secret in any line.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createPanel, createUser, issueApiToken, openSqliteStore, type Panel } from '../core/host.ts'
import { createHostLogger, requestLogObserver } from './observability.ts'
import { SettingsError, settingsFromEnv } from './settings.ts'
import { standardPlugins } from './standard-plugins.ts'
import { startWebhookReceiver, temporaryDataDir, type WebhookReceiver, waitFor } from './testing/index.ts'

type Line = Record<string, unknown>

const password = 'observability-test-password-Zq9'
let panel: Panel
let staffToken: string
/** Every line the host's logger wrote, as written. */
let written = ''
const lines = (): Line[] =>
  written
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line)
let good: WebhookReceiver
let failing: WebhookReceiver

/** A request to the panel as a client at 198.51.100.7. */
async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const response = await panel.handle(
    new Request(`http://localhost/api/v1${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    }),
    { address: '198.51.100.7' },
  )
  return { response, body: (await response.json().catch(() => null)) as Record<string, unknown> }
}

beforeAll(async () => {
  good = startWebhookReceiver()
  failing = startWebhookReceiver()
  failing.answer(500)
  // The host's logger exactly as `npm start` makes it, writing into `written` instead of stdout.
  const log = createHostLogger({
    destination: {
      write(line: string) {
        written += line
      },
    },
  })
  panel = await createPanel({
    store: openSqliteStore({ path: ':memory:' }),
    plugins: standardPlugins({ dataDir: temporaryDataDir(), webhookAllowedHosts: ['127.0.0.1'] }),
    secret: 'observability-test-secret-observability',
    logger: log,
    observe: requestLogObserver(log),
    events: { pollIntervalMs: 10 },
  })
  const staff = await createUser(panel.store.db, {
    email: 'staff@example.test',
    password,
    staffRole: 'platform',
  })
  staffToken = (
    await panel.store.transaction((trx) =>
      issueApiToken(
        trx,
        staff,
        { name: 'staff', scopes: ['*'], customerId: null, expiresAt: null },
        { defaultDays: 90, maxDays: 365 },
      ),
    )
  ).token
  panel.start()
})
afterAll(async () => {
  await panel.close()
  good.stop()
  failing.stop()
})

describe('the request log', () => {
  test('one line per request: time, request id (the client’s when well-formed), method, route template, status, duration, user, token, customer, address', async () => {
    const customer = await call('POST', '/customers', { token: staffToken, body: { name: 'Acme' } })
    expect(customer.response.status).toBe(201)
    const customerId = String(customer.body.id)
    const minted = await call('POST', '/api-tokens', {
      token: staffToken,
      body: { name: 'acme only', scopes: ['customer:read'], customerId },
    })
    expect(minted.response.status).toBe(201)
    const limited = String(minted.body.token)

    const before = lines().length
    const read = await call('GET', `/customers/${customerId}`, {
      token: limited,
      headers: { 'x-request-id': 'trace-abc.123' },
    })
    expect(read.response.status).toBe(200)
    const line = lines()
      .slice(before)
      .find((candidate) => candidate.msg === 'request')
    expect(line).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      requestId: 'trace-abc.123',
      method: 'GET',
      route: '/api/v1/customers/:id',
      status: 200,
      durationMs: expect.any(Number),
      userId: expect.stringMatching(/^usr_/),
      tokenId: minted.body.id,
      customerId,
      address: '198.51.100.7',
      msg: 'request',
    })

    // A malformed X-Request-Id is replaced by one of the panel's, the one the client is answered with.
    const odd = await call('GET', '/me', {
      token: staffToken,
      headers: { 'x-request-id': 'has spaces in it' },
    })
    const oddLine = lines().at(-1)
    expect(oddLine).toMatchObject({
      route: '/api/v1/me',
      requestId: odd.response.headers.get('x-request-id'),
    })
    expect(String(oddLine?.requestId)).toMatch(/^req_/)

    // No route: the template is null and the path as sent is not logged.
    await call('GET', '/no/such/thing/cus_secretish')
    expect(lines().at(-1)).toMatchObject({ route: null, status: 404, userId: null, tokenId: null })
    expect(written).not.toContain('cus_secretish')
  })
})

describe('webhook deliveries', () => {
  test('are counted by outcome; a failed attempt is logged with the delivery, endpoint and event ids', async () => {
    const ok = await call('POST', '/webhooks', {
      token: staffToken,
      body: { url: good.url, events: ['customer.created'] },
    })
    const bad = await call('POST', '/webhooks', {
      token: staffToken,
      body: { url: failing.url, events: ['customer.created'] },
    })
    expect(ok.response.status).toBe(201)
    expect(bad.response.status).toBe(201)
    await call('POST', '/customers', { token: staffToken, body: { name: 'Hooked' } })
    const delivered = await good.waitFor((request) => request.json.type === 'customer.created')
    await failing.waitFor((request) => request.json.type === 'customer.created')
    const failure = await waitFor('the failed attempt to be logged', async () =>
      lines().find((line) => line.msg === 'webhook delivery attempt failed; retrying'),
    )
    expect(failure).toMatchObject({
      level: 'warn',
      plugin: 'webhooks',
      deliveryId: expect.stringMatching(/^whd_/),
      endpointId: bad.body.id,
      eventId: delivered.json.id,
      eventType: 'customer.created',
      attempt: 1,
      statusCode: 500,
      error: 'the endpoint answered 500',
      nextAttemptAt: expect.any(String),
    })
    // The URL is never logged (a receiver's may carry its credentials).
    expect(written).not.toContain(failing.url)

    const scrape = async () =>
      (await panel.handle(new Request('http://localhost/metrics'), { address: '127.0.0.1' })).text()
    // Each attempt is counted once its outcome is recorded, just after the receiver's answer.
    const text = await waitFor('both attempts to be counted', async () => {
      const scraped = await scrape()
      return scraped.includes('plinth_webhook_deliveries_total{outcome="succeeded"} 1') &&
        scraped.includes('plinth_webhook_deliveries_total{outcome="retrying"} 1')
        ? scraped
        : undefined
    })
    expect(text).toContain('plinth_webhook_deliveries_total{outcome="failed"} 0')
    expect(text).toContain('plinth_webhook_delivery_duration_seconds_count 2')
    // The retry is pending, due later: waiting, but not late.
    expect(text).toContain('plinth_webhook_deliveries_pending 1')
    expect(text).toContain('plinth_webhook_delivery_lag_seconds 0')
  })
})

describe('secrets', () => {
  test('no token, webhook secret, password, session or request body appears in any log line', async () => {
    const marker = 'Body-Marker-7f3a9c'
    const secrets: string[] = [staffToken, password]
    const minted = await call('POST', '/api-tokens', {
      token: staffToken,
      body: { name: marker, scopes: ['*'] },
    })
    secrets.push(String(minted.body.token))
    const hook = await call('POST', '/webhooks', {
      token: staffToken,
      body: { url: good.url, events: ['*'], description: marker },
    })
    secrets.push(String(hook.body.secret))
    const rotated = await call('POST', `/webhooks/${hook.body.id}/rotate-secret`, { token: staffToken })
    secrets.push(String(rotated.body.secret))
    const signedIn = await call('POST', '/auth/login', { body: { email: 'staff@example.test', password } })
    expect(signedIn.response.status).toBe(200)
    const cookie = signedIn.response.headers.get('set-cookie')?.split(';')[0]?.split('=')[1] ?? ''
    secrets.push(cookie, String(signedIn.body.csrfToken))
    const refused = await call('POST', '/auth/login', {
      body: { email: 'staff@example.test', password: `${password}-wrong` },
    })
    expect(refused.response.status).toBe(401)
    await call('POST', '/customers', { token: staffToken, body: { name: marker } })
    await good.waitFor(
      (request) => request.json.type === 'customer.created' && request.json.data.name === marker,
    )

    expect(lines().length).toBeGreaterThan(5)
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(10)
      expect(written).not.toContain(secret)
    }
    // Not even a part of one: the token's random part alone, the secret without its prefix.
    expect(written).not.toContain(String(minted.body.token).slice(7, 30))
    expect(written).not.toContain(String(hook.body.secret).slice(6, 30))
    expect(written).not.toContain(marker)
  })
})

describe('settings', () => {
  test('LOG_LEVEL is debug, info (default), warn or error; LOG_REQUESTS is on unless 0, false or no', () => {
    expect(settingsFromEnv({}).logLevel).toBe('info')
    expect(settingsFromEnv({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn')
    expect(settingsFromEnv({}).logRequests).toBe(true)
    expect(settingsFromEnv({ LOG_REQUESTS: 'no' }).logRequests).toBe(false)
    expect(() => settingsFromEnv({ LOG_LEVEL: 'verbose', METRICS_TOKEN: 'short' })).toThrow(SettingsError)
    try {
      settingsFromEnv({ LOG_LEVEL: 'verbose', METRICS_TOKEN: 'short' })
    } catch (error) {
      expect((error as SettingsError).problems).toEqual([
        'LOG_LEVEL must be debug, info, warn or error, not "verbose"',
        'METRICS_TOKEN must be at least 16 characters long (or unset, for loopback callers only)',
      ])
    }
  })

  test('lines below the level are not written', () => {
    let written = ''
    const log = createHostLogger({
      level: 'warn',
      destination: {
        write(line: string) {
          written += line
        },
      },
    })
    log.info({ a: 1 }, 'dropped')
    log.warn({ b: 2 }, 'kept')
    expect(
      written
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([{ level: 'warn', time: expect.any(String), b: 2, msg: 'kept' }])
  })
})
