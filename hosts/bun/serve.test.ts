// The standalone server: hosts/bun/main.ts over real HTTP (health, errors, body limit, SIGTERM) and servePanel.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { once } from 'node:events'
import { connect } from 'node:net'
import { installationPlugins } from '../plinth-config.ts'
import { settingsFromEnv } from '../settings.ts'
import { openStandardPanel } from '../standard-panel.ts'
import {
  bunBin,
  createProcessTracker,
  hostEnv,
  repoRoot,
  type Standalone,
  testDatabaseSettings,
  tokenPattern,
} from '../testing/host-process.ts'
import { startSlowPost } from '../testing/slow-post.ts'
import { parseTrustedProxies, type TrustedProxies } from '../trusted-proxies.ts'
import { servePanel } from './serve.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-serve-')

afterAll(cleanup)

/** A platform staff user and a `*` token for it, made with the CLI. */
async function staffToken(dataDir: string): Promise<string> {
  const admin = await runCli(dataDir, [
    'admin',
    'create',
    '--email',
    'staff@example.com',
    '--password',
    'correct horse battery',
  ])
  expect(admin.exitCode).toBe(0)
  const created = await runCli(dataDir, ['token', 'create', '--email', 'staff@example.com', '--scopes', '*'])
  expect(created.exitCode).toBe(0)
  const token = created.stdout.trimEnd().split('\n').at(-1) ?? ''
  expect(token).toMatch(tokenPattern)
  return token
}

/** Whether a TCP connection to `base` is refused now. */
async function connectionRefused(base: string): Promise<boolean> {
  const url = new URL(base)
  const socket = connect(Number(url.port), url.hostname)
  try {
    await once(socket, 'connect')
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ECONNREFUSED'
  } finally {
    socket.destroy()
  }
}

/** Whether connections to `base` are refused within a couple of seconds (a server closes its socket soon after). */
async function soonRefused(base: string): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await connectionRefused(base)) return true
    await Bun.sleep(20)
  }
  return false
}

describe('the standalone server (hosts/bun/main.ts)', () => {
  let server: Standalone
  let token: string

  beforeAll(async () => {
    const dataDir = tempDataDir()
    server = await startStandalone(dataDir, { BODY_LIMIT_BYTES: '1024' })
    token = await staffToken(dataDir)
  })

  afterAll(async () => {
    server?.process.kill('SIGTERM')
    await server?.process.exited
  })

  test('listens on 127.0.0.1 by default, on the free port it picked', () => {
    const url = new URL(server.url)
    expect(url.hostname).toBe('127.0.0.1')
    expect(Number(url.port)).toBeGreaterThan(0)
  })

  test('a second panel asked for a port in use is refused, naming PORT, exit 2; the first keeps every request', async () => {
    const port = new URL(server.url).port
    const second = Bun.spawn([bunBin, 'hosts/bun/main.ts'], {
      cwd: repoRoot,
      env: hostEnv(tempDataDir(), { PORT: port }),
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stderr, exitCode] = await Promise.all([new Response(second.stderr).text(), second.exited])
    expect(exitCode).toBe(2)
    expect(stderr.trim()).toStartWith(`plinth: PORT: cannot listen on 127.0.0.1:${port}`)
    expect(stderr).not.toContain('    at ')
    for (let i = 0; i < 20; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  })

  test('answers /healthz and /readyz with 200 JSON over real HTTP', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${server.url}${path}`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toStartWith('application/json')
      expect(await response.json()).toMatchObject({ status: 'ok' })
    }
  })

  test('answers an unknown route with a 404 problem+json', async () => {
    const response = await fetch(`${server.url}/api/v1/no-such-thing`)
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await response.json()) as { status: number; code: string }
    expect(problem.status).toBe(404)
    expect(problem.code).toBe('route_not_found')
  })

  test('refuses a body larger than BODY_LIMIT_BYTES with 413 body_too_large', async () => {
    const body = JSON.stringify({
      customerId: 'cus_x',
      name: 'x'.repeat(4096),
      type: 'wordpress',
      domain: 'a.b',
    })
    const response = await fetch(`${server.url}/api/v1/sites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(413)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await response.json()) as { code: string; limitBytes: number }
    expect(problem.code).toBe('body_too_large')
    expect(problem.limitBytes).toBe(1024)
  })

  test('refuses a chunked body (no Content-Length) that grows past the limit with 413 too', async () => {
    const chunk = new TextEncoder().encode(`{"name":"${'x'.repeat(600)}`)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk)
        controller.enqueue(chunk)
        controller.close()
      },
    })
    const response = await fetch(`${server.url}/api/v1/sites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: stream,
    })
    expect(response.status).toBe(413)
    expect(((await response.json()) as { code: string }).code).toBe('body_too_large')
  })
})

describe('the standalone server on SIGTERM', () => {
  test('finishes a request in flight, refuses new connections, then exits 0 saying it stopped', async () => {
    const dataDir = tempDataDir()
    const server = await startStandalone(dataDir)
    const token = await staffToken(dataDir)
    const request = await startSlowPost(
      server.url,
      '/api/v1/customers',
      token,
      JSON.stringify({ name: 'Acme' }),
    )
    // 100 Continue: the server has parsed the headers and handed the request to the panel; no body sent yet.
    expect(await request.interim).toBe(100)

    server.process.kill('SIGTERM')
    await server.stdout.waitFor(/SIGTERM received/)
    expect(server.process.exitCode).toBeNull()
    expect(await soonRefused(server.url)).toBe(true)
    expect(server.process.exitCode).toBeNull()

    const response = await request.finish()
    expect(response.status).toBe(201)
    const customer = JSON.parse(response.body) as { id: string; name: string }
    expect(customer.name).toBe('Acme')
    expect(await server.process.exited).toBe(0)
    await server.stdout.done
    expect(server.stdout.text).toContain('Plinth panel stopped')

    // What the in-flight request wrote was committed before the store closed.
    const restarted = await startStandalone(dataDir)
    const read = await fetch(`${restarted.url}/api/v1/customers/${customer.id}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(read.status).toBe(200)
    restarted.process.kill('SIGTERM')
    expect(await restarted.process.exited).toBe(0)
  })
})

/** The standard installation in `dataDir`, as `npm start` opens it. */
async function openIn(dataDir: string) {
  const settings = settingsFromEnv({ DATA_DIR: dataDir, ...testDatabaseSettings(dataDir) })
  return openStandardPanel(settings, await installationPlugins(settings))
}

describe('servePanel', () => {
  test('serves a standard panel on a free port when asked for port 0', async () => {
    const panel = await openIn(tempDataDir())
    const server = servePanel(panel, { hostname: '127.0.0.1', port: 0 })
    try {
      expect(server.url.port).not.toBe('0')
      const response = await fetch(new URL('/readyz', server.url))
      expect(response.status).toBe(200)
    } finally {
      await server.stop()
    }
  })

  test('stop() resolves, closes the store and frees the port; calling it again is harmless', async () => {
    const panel = await openIn(tempDataDir())
    const server = servePanel(panel, { hostname: '127.0.0.1', port: 0 })
    expect((await fetch(new URL('/healthz', server.url))).status).toBe(200)
    await server.stop()
    expect(panel.store.isOpen).toBe(false)
    expect(await connectionRefused(server.url.href)).toBe(true)
    await server.stop()
    expect(panel.store.isOpen).toBe(false)
  })

  test('stop() waits for a request in flight before it closes the store', async () => {
    const dataDir = tempDataDir()
    // The CLI refuses a DATA_DIR without an installation: make it first.
    expect((await runCli(dataDir, ['init'])).exitCode).toBe(0)
    const token = await staffToken(dataDir)
    const panel = await openIn(dataDir)
    const server = servePanel(panel, { hostname: '127.0.0.1', port: 0 })
    const request = await startSlowPost(server.url.href, '/api/v1/customers', token, '{"name":"Acme"}')
    expect(await request.interim).toBe(100)

    let stopped = false
    const stopping = server.stop().then(() => {
      stopped = true
    })
    await Bun.sleep(50)
    expect(stopped).toBe(false)
    expect(panel.store.isOpen).toBe(true)

    const response = await request.finish()
    expect(response.status).toBe(201)
    await stopping
    expect(panel.store.isOpen).toBe(false)
  })
})

/** The proxies `TRUST_PROXY=value` trusts. */
function trusted(value: string): TrustedProxies {
  const read = parseTrustedProxies(value)
  if ('problem' in read) throw new Error(read.problem)
  return read.proxies
}

describe('behind a TLS-terminating proxy', () => {
  /** Signs in over plain HTTP with `X-Forwarded-Proto: https`, then tries a session write from the https origin. */
  async function signInThroughProxy(trustedProxies: TrustedProxies) {
    const dataDir = tempDataDir()
    expect((await runCli(dataDir, ['init'])).exitCode).toBe(0)
    await staffToken(dataDir)
    const panel = await openIn(dataDir)
    const server = servePanel(panel, { hostname: '127.0.0.1', port: 0, trustedProxies })
    try {
      const login = await fetch(new URL('/api/v1/auth/login', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
        body: JSON.stringify({ email: 'staff@example.com', password: 'correct horse battery' }),
      })
      expect(login.status).toBe(200)
      const cookie = login.headers.get('set-cookie') ?? ''
      const { csrfToken } = (await login.json()) as { csrfToken: string }
      const write = await fetch(new URL('/api/v1/customers', server.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-proto': 'https',
          origin: `https://${server.url.host}`,
          cookie: cookie.split(';')[0] ?? '',
          'x-csrf-token': csrfToken,
        },
        body: JSON.stringify({ name: 'Acme' }),
      })
      return { secure: cookie.split('; ').includes('Secure'), writeStatus: write.status }
    } finally {
      await server.stop()
    }
  }

  test('from a proxy TRUST_PROXY names, X-Forwarded-Proto: https makes the cookie Secure and the https origin the panel’s own', async () => {
    expect(await signInThroughProxy(trusted('127.0.0.1'))).toEqual({ secure: true, writeStatus: 201 })
  })

  test('from anyone else the header is anyone’s: ignored, so the cookie is not Secure and https is another origin', async () => {
    expect(await signInThroughProxy([])).toEqual({ secure: false, writeStatus: 403 })
    expect(await signInThroughProxy(trusted('10.0.0.0/8'))).toEqual({ secure: false, writeStatus: 403 })
  }, 30_000)
})

describe('TRUST_PROXY', () => {
  /** The address the audit log records for a change sent with `X-Forwarded-For: forwarded` from 127.0.0.1. */
  async function recordedAddress(trustedProxies: TrustedProxies, forwarded: string): Promise<string | null> {
    const dataDir = tempDataDir()
    expect((await runCli(dataDir, ['init'])).exitCode).toBe(0)
    const token = await staffToken(dataDir)
    const panel = await openIn(dataDir)
    const server = servePanel(panel, { hostname: '127.0.0.1', port: 0, trustedProxies })
    try {
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      const created = await fetch(new URL('/api/v1/customers', server.url), {
        method: 'POST',
        headers: { ...headers, 'x-forwarded-for': forwarded },
        body: JSON.stringify({ name: 'Acme' }),
      })
      expect(created.status).toBe(201)
      const { id } = (await created.json()) as { id: string }
      const audit = await fetch(new URL(`/api/v1/audit?subject=${id}`, server.url), { headers })
      const { items } = (await audit.json()) as { items: { sourceAddress: string | null }[] }
      return items[0]?.sourceAddress ?? null
    } finally {
      await server.stop()
    }
  }

  test('forwarded addresses are believed only from the proxies it names: a site on this machine cannot claim one', async () => {
    // Found by review: any caller's X-Forwarded-For was believed, and a site on the local node connects from
    // 127.0.0.1, so it could be counted, throttled and audited as anyone.
    expect(await recordedAddress([], '203.0.113.9')).toBe('127.0.0.1')
    expect(await recordedAddress(trusted('10.0.0.0/8,192.0.2.1'), '203.0.113.9')).toBe('127.0.0.1')
    // From a proxy it names: the address that proxy added, the last entry; earlier ones are the client's claims.
    expect(await recordedAddress(trusted('127.0.0.1'), '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9')
    // Through two proxies it names, the first address that is not one of them.
    expect(await recordedAddress(trusted('127.0.0.0/8, 203.0.113.0/24'), '198.51.100.1, 203.0.113.9')).toBe(
      '198.51.100.1',
    )
  }, 60_000)

  test('its old yes/no form: 1, true and yes stop the start-up saying what to write; 0, false and no trust nobody', () => {
    for (const value of ['1', 'true', 'yes'])
      expect(() => settingsFromEnv({ TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY now names the proxies it trusts/,
      )
    for (const value of ['0', 'false', 'no', ''])
      expect(settingsFromEnv({ TRUST_PROXY: value }).trustedProxies).toEqual([])
    expect(() => settingsFromEnv({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/"10.0.0.0\/33" is neither/)
    expect(() => settingsFromEnv({ TRUST_PROXY: 'proxy.example' })).toThrow(/by IP address or CIDR/)
    expect(settingsFromEnv({ TRUST_PROXY: '127.0.0.1, ::1, 10.0.0.0/8' }).trustedProxies).toHaveLength(3)
  })
})
