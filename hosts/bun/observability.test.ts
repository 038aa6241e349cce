// `npm start`'s logs and `/metrics`, from outside: the real server on a socket, its stdout read as an operator's log
// collector would, `/metrics` asked from loopback, from the machine's own non-loopback address, through a proxy and
// with the token.

import { afterAll, describe, expect, test } from 'bun:test'
import { networkInterfaces } from 'node:os'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  type Standalone,
  startWebhookReceiver,
  waitFor,
} from '../testing/index.ts'

const { tempDataDir, startStandalone, runCli, cleanup } = createProcessTracker('plinth-observability-')
afterAll(cleanup)

/** This machine's first non-loopback IPv4 address: a client there is not "on this machine" for `/metrics`. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address

const portOf = (server: Standalone) => new URL(server.url).port
const metricsAt = (host: string, server: Standalone, headers: Record<string, string> = {}) =>
  fetch(`http://${host}:${portOf(server)}/metrics`, { headers })

/** Stops the server with SIGTERM and answers every line it wrote on stdout, parsed. */
async function stopAndRead(server: Standalone): Promise<{ lines: Record<string, unknown>[]; text: string }> {
  server.process.kill('SIGTERM')
  expect(await server.process.exited).toBe(0)
  await server.stdout.done
  const text = server.stdout.text
  return {
    text,
    lines: text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  }
}

describe('without METRICS_TOKEN', () => {
  test.skipIf(outside === undefined)(
    'answers loopback callers only: 200 from 127.0.0.1, 403 from this machine’s other address and through a proxy',
    async () => {
      const server = await startStandalone(tempDataDir(), { HOST: '0.0.0.0' })
      const loopback = await metricsAt('127.0.0.1', server)
      expect(loopback.status).toBe(200)
      expect(loopback.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
      const text = await loopback.text()
      expect(text).toContain('# TYPE plinth_http_request_duration_seconds histogram')
      // The standard host adds the process's own series.
      expect(text).toContain('# TYPE process_resident_memory_bytes gauge')

      const fromOutside = await metricsAt(outside ?? '', server)
      expect(fromOutside.status).toBe(403)
      expect(fromOutside.headers.get('content-type')).toBe('application/problem+json')
      expect(await fromOutside.json()).toMatchObject({ status: 403, code: 'metrics_forbidden' })

      const proxied = await metricsAt('127.0.0.1', server, { 'x-forwarded-for': '203.0.113.5' })
      expect(proxied.status).toBe(403)
    },
  )

  test('behind TRUST_PROXY, a request the proxy forwarded is refused even when the address it forwards is loopback', async () => {
    const server = await startStandalone(tempDataDir(), { TRUST_PROXY: '127.0.0.1' })
    expect((await metricsAt('127.0.0.1', server, { 'x-forwarded-for': '127.0.0.1' })).status).toBe(403)
    expect((await metricsAt('127.0.0.1', server, { 'x-forwarded-for': '203.0.113.5' })).status).toBe(403)
    // Straight from this machine, not through the proxy: answered.
    expect((await metricsAt('127.0.0.1', server)).status).toBe(200)
  })
})

describe('with METRICS_TOKEN', () => {
  const metricsToken = 'scrape-me-0123456789abcdefghij'

  test('needs the token of every caller: 401 without or with another, 200 with it, from loopback and elsewhere', async () => {
    const server = await startStandalone(tempDataDir(), { HOST: '0.0.0.0', METRICS_TOKEN: metricsToken })
    const missing = await metricsAt('127.0.0.1', server)
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="plinth-metrics"')
    expect(await missing.json()).toMatchObject({ code: 'unauthenticated' })
    const wrong = await metricsAt('127.0.0.1', server, { authorization: `Bearer ${metricsToken}x` })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ code: 'invalid_token' })
    for (const host of ['127.0.0.1', ...(outside ? [outside] : [])]) {
      const answered = await metricsAt(host, server, { authorization: `Bearer ${metricsToken}` })
      expect(answered.status).toBe(200)
      expect(await answered.text()).toContain('plinth_build_info{version=')
    }
    // The refusals were counted like any request, under the route's template.
    const text = await (
      await metricsAt('127.0.0.1', server, { authorization: `Bearer ${metricsToken}` })
    ).text()
    expect(text).toContain(
      'plinth_http_request_duration_seconds_count{method="GET",route="/metrics",status="401"} 2',
    )
  })
})

describe('the log on stdout', () => {
  test('JSON lines: the start-up line that says where it listens, a line per request, the stop; no secret in any', async () => {
    const dataDir = tempDataDir()
    const receiver = startWebhookReceiver()
    try {
      const server = await startStandalone(dataDir, { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' })
      // The CLI works beside the running server, on its DATA_DIR.
      const staffToken = await cliStaffToken(runCli, dataDir)
      const call = apiClient(server, staffToken)
      const hook = await call<{ id: string; secret: string }>('POST', '/webhooks', {
        url: receiver.url,
        events: ['customer.created'],
      })
      expect(hook.status).toBe(201)
      const minted = await call<{ token: string }>('POST', '/api-tokens', { name: 'another', scopes: ['*'] })
      expect(minted.status).toBe(201)
      const login = await fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'login-attempt-1' },
        body: JSON.stringify({ email: 'staff@example.com', password: 'correct horse battery' }),
      })
      expect(login.status).toBe(200)
      const customer = await call<{ id: string }>('POST', '/customers', { name: 'Secret Body Name 4411' })
      expect(customer.status).toBe(201)
      await receiver.waitFor((request) => request.json.type === 'customer.created')
      // The attempt is recorded once the receiver's answer is in.
      const metrics = await waitFor('the delivery to be counted', async () => {
        const text = await (await metricsAt('127.0.0.1', server)).text()
        return text.includes('plinth_webhook_deliveries_total{outcome="succeeded"} 1') ? text : undefined
      })
      expect(metrics).toContain(
        'plinth_http_request_duration_seconds_count{method="POST",route="/api/v1/customers",status="201"} 1',
      )

      const { lines, text } = await stopAndRead(server)
      expect(lines[0]).toMatchObject({
        level: 'info',
        msg: expect.stringMatching(
          /^Plinth panel listening on http:\/\/127\.0\.0\.1:\d+ \(data in .+, ready in \d+ ms\)$/,
        ),
        url: server.url,
        metrics: 'loopback',
      })
      expect(lines.find((line) => line.requestId === 'login-attempt-1')).toMatchObject({
        level: 'info',
        method: 'POST',
        route: '/api/v1/auth/login',
        status: 200,
        address: '127.0.0.1',
        msg: 'request',
      })
      expect(lines.filter((line) => line.msg === 'request' && line.route === '/api/v1/webhooks')).toEqual([
        expect.objectContaining({ method: 'POST', status: 201, userId: expect.stringMatching(/^usr_/) }),
      ])
      expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'Plinth panel stopped' })
      const cookie = login.headers.get('set-cookie')?.split(';')[0]?.split('=')[1] ?? ''
      for (const secret of [
        staffToken,
        minted.body.token,
        hook.body.secret,
        'correct horse battery',
        cookie,
      ]) {
        expect(secret.length).toBeGreaterThan(10)
        expect(text).not.toContain(secret)
      }
      expect(text).not.toContain('Secret Body Name 4411')
      expect(server.stderr.text).toBe('')
    } finally {
      receiver.stop()
    }
  })

  test('LOG_REQUESTS=0 keeps the start-up line and drops the request lines', async () => {
    const server = await startStandalone(tempDataDir(), { LOG_REQUESTS: '0' })
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    const { lines } = await stopAndRead(server)
    expect(lines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^Plinth panel listening on /),
      'SIGTERM received: finishing in-flight requests',
      'Plinth panel stopped',
    ])
  })
})
