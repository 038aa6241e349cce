// Pinned delivery on loopback servers: Host and TLS keep the URL's name, no redirects, failures as outcomes.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import type { TCPSocketListener } from 'bun'
import { type PinnedPost, type PostOutcome, pinnedUrl, postPinned } from './transport.ts'

const tlsDir = join(import.meta.dir, 'testing', 'tls')
const ca = readFileSync(join(tlsDir, 'ca.pem'), 'utf8')
const cert = readFileSync(join(tlsDir, 'hook.pem'), 'utf8')
const key = readFileSync(join(tlsDir, 'hook.key'), 'utf8')

/** What a server saw of one request. */
interface Seen {
  readonly method: string
  readonly path: string
  readonly host: string | null
  readonly headers: Headers
  readonly body: string
}

/** A loopback server that records every request and answers by path. */
function startServer(hostname: string, tls?: { cert: string; key: string }) {
  const seen: Seen[] = []
  let bodyCancelled = false
  const server = Bun.serve({
    hostname,
    port: 0,
    idleTimeout: 0,
    ...(tls ? { tls } : {}),
    async fetch(request): Promise<Response> {
      const { pathname } = new URL(request.url)
      seen.push({
        method: request.method,
        path: pathname,
        host: request.headers.get('host'),
        headers: request.headers,
        body: await request.text(),
      })
      if (pathname === '/hang') return new Promise<Response>(() => {})
      if (pathname.startsWith('/redirect/')) {
        return new Response(null, {
          status: Number(pathname.slice('/redirect/'.length)),
          headers: { location: `http://${hostname}:${server.port}/redirect-target` },
        })
      }
      if (pathname === '/status/500') return new Response('broken', { status: 500 })
      if (pathname === '/endless') {
        // A receiver that never stops talking: the outcome must not wait for the end of its body.
        return new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new Uint8Array(64 * 1024))
            },
            cancel() {
              bodyCancelled = true
            },
          }),
        )
      }
      return new Response('ok', { status: 200 })
    },
  })
  return {
    server,
    seen,
    bodyCancelled: () => bodyCancelled,
    requestsTo: (path: string) => seen.filter((request) => request.path === path),
  }
}

/** A TCP server that accepts connections and never says anything. */
function startSilentServer(): TCPSocketListener {
  return Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {}, open() {} } })
}

const post = (url: string, extra: Partial<PinnedPost> = {}): Promise<PostOutcome> =>
  postPinned({
    target: { url: new URL(url), address: '127.0.0.1', family: 4 },
    headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
    body: '{"hello":"world"}',
    timeoutMs: 5_000,
    ...extra,
  })

function expectAnswered(outcome: PostOutcome, status: number): void {
  expect(outcome).toMatchObject({ kind: 'answered', status })
  expect(Number.isInteger(outcome.durationMs) && outcome.durationMs >= 0).toBe(true)
}

function expectFailed(outcome: PostOutcome, reason: 'timeout' | 'aborted' | 'network'): string {
  if (outcome.kind !== 'failed') throw new Error(`expected a ${reason} failure, got status ${outcome.status}`)
  expect(outcome.reason).toBe(reason)
  expect(outcome.message.length).toBeGreaterThan(0)
  return outcome.message
}

let plain: ReturnType<typeof startServer>
let secure: ReturnType<typeof startServer>
let silent: TCPSocketListener

beforeAll(() => {
  plain = startServer('127.0.0.1')
  secure = startServer('127.0.0.1', { cert, key })
  silent = startSilentServer()
})
afterAll(() => {
  plain.server.stop(true)
  secure.server.stop(true)
  silent.stop(true)
})

describe('pinning', () => {
  test('a name that is not in DNS reaches the pinned address, which sees the name as Host', async () => {
    const port = plain.server.port
    expectAnswered(await post(`http://hook.example.test:${port}/x?y=1`), 200)
    const [request] = plain.requestsTo('/x')
    expect(request?.host).toBe(`hook.example.test:${port}`)
    expect(request?.method).toBe('POST')
    expect(request?.body).toBe('{"hello":"world"}')
    expect(request?.headers.get('webhook-id')).toBe('evt_1')
    expect(request?.headers.get('content-type')).toBe('application/json')
  })

  test('an IPv6 address is reached in brackets', async () => {
    const v6 = startServer('::1')
    try {
      const outcome = await postPinned({
        target: { url: new URL(`http://hook.example.test:${v6.server.port}/six`), address: '::1', family: 6 },
        headers: {},
        body: 'six',
        timeoutMs: 5_000,
      })
      expectAnswered(outcome, 200)
      expect(v6.requestsTo('/six').map((request) => request.host)).toEqual([
        `hook.example.test:${v6.server.port}`,
      ])
    } finally {
      v6.server.stop(true)
    }
  })

  test('any status is an answer, 5xx included', async () => {
    expectAnswered(await post(`http://hook.example.test:${plain.server.port}/status/500`), 500)
  })
})

describe('https with a private CA', () => {
  test('the pinned server is trusted when its certificate names the URL host, though not the address', async () => {
    const port = secure.server.port
    expectAnswered(await post(`https://hook.example.test:${port}/tls`, { ca }), 200)
    expect(secure.requestsTo('/tls').map((request) => request.host)).toEqual([`hook.example.test:${port}`])
  })

  test('a trailing dot on the name still matches the certificate', async () => {
    expectAnswered(await post(`https://hook.example.test.:${secure.server.port}/dot`, { ca }), 200)
  })

  test('the handshake names the URL host (SNI) without its trailing dot, not the address', async () => {
    // Bun.serve does not show the requested server name; node:https does.
    const names: unknown[] = []
    const server = createServer({ cert, key }, (request, response) => {
      names.push((request.socket as TLSSocket).servername)
      response.end('ok')
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      const { port } = server.address() as AddressInfo
      expectAnswered(await post(`https://hook.example.test:${port}/`, { ca }), 200)
      expectAnswered(await post(`https://hook.example.test.:${port}/`, { ca }), 200)
      expect(names).toEqual(['hook.example.test', 'hook.example.test'])
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  test('the same server reached under another name fails on the certificate name', async () => {
    const message = expectFailed(
      await post(`https://other.example.test:${secure.server.port}/other`, { ca }),
      'network',
    )
    expect(message).toContain('other.example.test')
    expect(secure.requestsTo('/other')).toEqual([])
  })

  test('without the private CA the certificate is not trusted', async () => {
    expectFailed(await post(`https://hook.example.test:${secure.server.port}/untrusted`), 'network')
    expect(secure.requestsTo('/untrusted')).toEqual([])
  })
})

describe('redirects', () => {
  test.each([301, 302, 303, 307, 308])(
    'a %p is answered as it is and its Location gets nothing',
    async (status) => {
      expectAnswered(await post(`http://hook.example.test:${plain.server.port}/redirect/${status}`), status)
      expect(plain.requestsTo('/redirect-target')).toEqual([])
    },
  )
})

describe('failures', () => {
  test('a server that never answers is a timeout after timeoutMs, not when the server gives up', async () => {
    const started = performance.now()
    const outcome = await post(`http://hook.example.test:${plain.server.port}/hang`, { timeoutMs: 200 })
    const waited = performance.now() - started
    expect(expectFailed(outcome, 'timeout')).toContain('200 ms')
    expect(outcome.durationMs).toBeGreaterThanOrEqual(150)
    // The server never answers at all, so anything short of forever shows the attempt stopped on its own.
    expect(waited).toBeLessThan(5_000)
  })

  test('a listener that accepts and stays silent is a timeout, over plain http and during the TLS handshake', async () => {
    for (const scheme of ['http', 'https']) {
      const outcome = await post(`${scheme}://hook.example.test:${silent.port}/`, { timeoutMs: 200, ca })
      expectFailed(outcome, 'timeout')
      expect(outcome.durationMs).toBeLessThan(5_000)
    }
  })

  test('an aborted signal abandons the attempt in flight as aborted', async () => {
    const controller = new AbortController()
    const pending = post(`http://hook.example.test:${plain.server.port}/hang`, { signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    expect(expectFailed(await pending, 'aborted')).toContain('abandoned')
  })

  test('a signal aborted before the attempt gives aborted without a request', async () => {
    const before = plain.requestsTo('/never').length
    const outcome = await post(`http://hook.example.test:${plain.server.port}/never`, {
      signal: AbortSignal.abort(),
    })
    expectFailed(outcome, 'aborted')
    expect(plain.requestsTo('/never').length).toBe(before)
  })

  test('a refused connection is a network failure', async () => {
    const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = closed.port
    closed.stop(true)
    expectFailed(await post(`http://hook.example.test:${port}/`), 'network')
  })

  test('an endless response body does not hold up the outcome, and is not read to its end', async () => {
    expectAnswered(
      await post(`http://hook.example.test:${plain.server.port}/endless`, { timeoutMs: 5_000 }),
      200,
    )
    // Had the body been read, the attempt would have run into its timeout instead of being answered.
    for (let wait = 0; wait < 100 && !plain.bodyCancelled(); wait++) await Bun.sleep(20)
    expect(plain.bodyCancelled()).toBe(true)
  })
})

describe('pinnedUrl', () => {
  test('puts an IPv4 address in place of the name and keeps port, path and query', () => {
    const url = new URL('https://hook.example.test:8443/in/bound?a=1&b=two#frag')
    expect(pinnedUrl({ url, address: '203.0.113.9', family: 4 }).href).toBe(
      'https://203.0.113.9:8443/in/bound?a=1&b=two#frag',
    )
    expect(url.hostname).toBe('hook.example.test')
  })

  test('brackets an IPv6 address and keeps port, path and query', () => {
    const url = new URL('https://hook.example.test:8443/in?a=1')
    expect(pinnedUrl({ url, address: '2001:db8::1', family: 6 }).href).toBe(
      'https://[2001:db8::1]:8443/in?a=1',
    )
  })

  test('keeps the default port implicit', () => {
    expect(pinnedUrl({ url: new URL('https://hook.example.test/'), address: '::1', family: 6 }).href).toBe(
      'https://[::1]/',
    )
    expect(
      pinnedUrl({ url: new URL('http://hook.example.test./x'), address: '127.0.0.1', family: 4 }).href,
    ).toBe('http://127.0.0.1/x')
  })
})
