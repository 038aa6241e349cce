// The logs API on a real node: the local node serving with this machine's nginx and PHP-FPM, requests made to a
// real site over HTTP, then read back through the API (statuses, `lines`, `since`, `status`), a PHP warning read
// from the PHP log, a follow over a real HTTP connection receiving a request made after it opened, and a rotation
// of the site's logs (nginx reloaded) after which the API reads on across the rotated file.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import {
  chmodSync,
  chownSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  freePort,
  type RunningServer,
  removeNodeLeftovers,
  requestSite,
  servePanel,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { logsPlugin } from './index.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-logs-e2e-'))
chmodSync(folder, 0o711)
const sitesDir = join(folder, 'sites')
const httpPort = freePort()
const domain = 'logs-e2e.example.test'
let tp: TestPanel
let server: RunningServer
let base: string
let token: string
let siteId: string
let home: string

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as a client would.
type Json = Record<string, any>

const api = async (path: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } })
const entries = async (path: string): Promise<Json[]> => {
  const response = await api(path)
  expect(response.status).toBe(200)
  return ((await response.json()) as { entries: Json[] }).entries
}
const visit = async (path: string) => {
  const response = await requestSite(httpPort, domain, path)
  await response.arrayBuffer()
  return response.status
}

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort, httpsPort: freePort() },
      }),
      sitesPlugin(),
      logsPlugin({ follow: { pollMs: 100 } }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  server = servePanel(tp.panel, {
    hostname: '127.0.0.1',
    port: 0,
    log: { debug() {}, info() {}, warn() {}, error() {} } as never,
  })
  base = server.url.toString().replace(/\/$/, '')
  tp.panel.start()
  token = await tp.token()
  const call = async (method: string, path: string, body?: unknown) =>
    (await tp.request(method, `/api/v1${path}`, { token, body })).json() as Promise<Json>
  await waitFor('the local node to serve', async () => {
    const nodes = await call('GET', '/nodes')
    if (nodes.items[0]?.agent.capabilities?.mode === 'serving') return true
    await Bun.sleep(50)
    return null
  })
  const customer = await call('POST', '/customers', { name: 'Logs Co' })
  const site = await call('POST', '/sites', {
    customerId: customer.id,
    name: 'logs-e2e',
    type: 'wordpress',
    domain,
  })
  siteId = site.id
  await waitFor(
    'the site active',
    async () => {
      const now = await call('GET', `/sites/${siteId}`)
      if (now.status !== 'active') await Bun.sleep(50)
      return now.status === 'active'
    },
    60_000,
  )
  home = join(sitesDir, 'sites', siteId)
  // A PHP page that warns, written as the site's user would.
  const htdocs = join(home, 'htdocs')
  const owner = statSync(htdocs)
  const page = join(htdocs, 'warn.php')
  writeFileSync(page, "<?php trigger_error('plinth-logs-probe', E_USER_WARNING); echo 'ok';\n")
  chownSync(page, owner.uid, owner.gid)
}, 90_000)

afterAll(async () => {
  await server?.stop()
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

test('the requests just made are listed with their statuses; lines, since and status narrow them', async () => {
  expect(await visit('/')).toBe(200)
  expect(await visit('/no-such-page')).toBe(404)
  expect(await visit('/warn.php')).toBe(200)
  const all = await waitFor('the requests in the access log', async () => {
    const found = await entries(`/sites/${siteId}/logs/access`)
    if (found.length >= 3) return found
    await Bun.sleep(50)
    return null
  })
  expect(all.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
    ['GET', '/', 200],
    ['GET', '/no-such-page', 404],
    ['GET', '/warn.php', 200],
  ])
  expect(all[0]?.remoteAddress).toBe('127.0.0.1')
  expect(Date.now() - Date.parse(all[0]?.time)).toBeLessThan(60_000)
  expect((await entries(`/sites/${siteId}/logs/access?lines=1`)).map((entry) => entry.path)).toEqual([
    '/warn.php',
  ])
  expect((await entries(`/sites/${siteId}/logs/access?status=4xx`)).map((entry) => entry.path)).toEqual([
    '/no-such-page',
  ])
  // nginx logs whole seconds: the cut is on one, and the next request comes after it.
  const cutAt = Math.ceil(Date.now() / 1000) * 1000 + 1000
  const cut = new Date(cutAt).toISOString()
  await Bun.sleep(cutAt - Date.now() + 50)
  expect(await visit('/after-cut')).toBe(404)
  const since = await waitFor('the request after the cut', async () => {
    const found = await entries(`/sites/${siteId}/logs/access?since=${encodeURIComponent(cut)}`)
    if (found.length > 0) return found
    await Bun.sleep(50)
    return null
  })
  expect(since.map((entry) => entry.path)).toEqual(['/after-cut'])
})

test('a PHP warning appears in the PHP log with its level', async () => {
  const found = await waitFor('the warning in the PHP log', async () => {
    const php = await entries(`/sites/${siteId}/logs/php`)
    const warning = php.find((entry) => entry.message.includes('plinth-logs-probe'))
    if (warning) return warning
    await Bun.sleep(50)
    return null
  })
  expect(found.level).toBe('warning')
  expect(found.message).toContain('warn.php')
})

test('a follow over HTTP receives a request made after it opened, across a rotation of the log', async () => {
  const response = await api(`/sites/${siteId}/logs/access?lines=1`, { accept: 'text/event-stream' })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/event-stream')
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  const until = async (what: string) => {
    const deadline = Date.now() + 15_000
    while (!text.includes(what)) {
      if (Date.now() > deadline) throw new Error(`no ${what} in: ${text}`)
      const { value, done } = await reader.read()
      if (done) throw new Error(`the stream ended: ${text}`)
      text += decoder.decode(value, { stream: true })
    }
  }
  await until('/after-cut')
  expect(await visit('/followed')).toBe(404)
  await until('/followed')
  // A rotation as the node's watch makes it (by size or age: log-rotation.test.ts), here at once: the log renamed to
  // `access.log.1`, nginx reloaded, which opens a new one.
  const nginxPid = Number(readFileSync(join(sitesDir, 'nginx', 'nginx.pid'), 'utf8'))
  renameSync(join(home, 'logs', 'access.log'), join(home, 'logs', 'access.log.1'))
  process.kill(nginxPid, 'SIGHUP')
  await Bun.sleep(500)
  expect(await visit('/after-rotation')).toBe(404)
  await until('/after-rotation')
  await reader.cancel()
  // The tail reads on into the rotated file.
  const all = (await entries(`/sites/${siteId}/logs/access`)).map((entry) => entry.path)
  expect(all.slice(-3)).toEqual(['/after-cut', '/followed', '/after-rotation'])
  expect(readFileSync(join(home, 'logs', 'access.log'), 'utf8')).toContain('/after-rotation')
}, 40_000)
