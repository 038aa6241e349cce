// The logs API on both stores, against the local node laying out files only (no nginx: the test writes the log
// lines a site's nginx and PHP would): validation codes, tenancy, scope, the filters, and a follow that receives a
// line written after it opened, resumes from its last event id, and ends when the site is suspended.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { logsPlugin } from './index.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-logs-store-'))
let tp: TestPanel
let token: string
let siteId: string
let otherSiteId: string
let customerId: string
let home: string

const access = (minute: number, status: number, path = '/') =>
  `198.51.100.7 - - [29/Nov/2026:10:${String(minute).padStart(2, '0')}:00 +0000] "GET ${path} HTTP/1.1" ${status} 10 "-" "probe/1.0" 200\n`

async function newSite(name: string): Promise<{ id: string; customerId: string }> {
  const customer = (await (
    await tp.request('POST', '/api/v1/customers', { token, body: { name } })
  ).json()) as {
    id: string
  }
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId: customer.id, name, type: 'wordpress', domain: `${name}.logs.test` },
  })
  expect(created.status).toBe(201)
  const site = (await created.json()) as { id: string }
  await waitFor(`site ${name} active`, async () => {
    const now = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as {
      status: string
    }
    if (now.status !== 'active') await Bun.sleep(20)
    return now.status === 'active'
  })
  return { id: site.id, customerId: customer.id }
}

const get = (path: string, options: { token?: string; headers?: Record<string, string> } = {}) =>
  tp.panel.handle(
    new Request(`http://panel.test/api/v1${path}`, {
      headers: { authorization: `Bearer ${options.token ?? token}`, ...options.headers },
    }),
  )

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [nodesPlugin({ dataDir }), logsPlugin({ follow: { pollMs: 20, checkMs: 100 } })],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
  ;({ id: siteId, customerId } = await newSite('logsite'))
  ;({ id: otherSiteId } = await newSite('othersite'))
  home = join(dataDir, 'sites', siteId)
  mkdirSync(join(home, 'logs', 'php'), { recursive: true })
  writeFileSync(join(home, 'logs', 'access.log.1'), access(1, 200, '/old') + access(2, 500, '/broken'))
  writeFileSync(
    join(home, 'logs', 'access.log'),
    access(3, 404, '/missing') + access(4, 200, '/') + access(5, 503, '/busy'),
  )
  writeFileSync(
    join(home, 'logs', 'php', 'error.log'),
    '[29-Nov-2026 10:05:00 UTC] PHP Warning:  Undefined variable $x in /htdocs/a.php on line 2\n',
  )
})
afterAll(async () => {
  await tp.panel.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('reading', () => {
  test('the last entries of the access log, oldest first, through the rotated file', async () => {
    const response = await get(`/sites/${siteId}/logs/access`)
    expect(response.status).toBe(200)
    const page = (await response.json()) as {
      kind: string
      entries: { path: string; status: number }[]
      truncated: boolean
      cursor: string
    }
    expect(page.kind).toBe('access')
    expect(page.entries.map((entry) => entry.path)).toEqual(['/old', '/broken', '/missing', '/', '/busy'])
    expect(page.truncated).toBe(false)
    expect(page.cursor).toMatch(/^\d+-\d+$/)
  })

  test('lines, since, status and search narrow the entries', async () => {
    const paths = async (query: string) =>
      (
        (await (await get(`/sites/${siteId}/logs/access?${query}`)).json()) as { entries: { path: string }[] }
      ).entries.map((entry) => entry.path)
    expect(await paths('lines=2')).toEqual(['/', '/busy'])
    expect(await paths('since=2026-11-29T10:03:00Z')).toEqual(['/missing', '/', '/busy'])
    expect(await paths('since=2026-11-29T11:03:00%2B01:00')).toEqual(['/missing', '/', '/busy'])
    expect(await paths('status=5xx')).toEqual(['/broken', '/busy'])
    expect(await paths('status=404,200-299')).toEqual(['/old', '/missing', '/'])
    expect(await paths('search=MISS')).toEqual(['/missing'])
  })

  test('the PHP log gives its level and message; the error log, empty, no entries', async () => {
    const php = (await (await get(`/sites/${siteId}/logs/php`)).json()) as {
      entries: { time: string; level: string; message: string }[]
    }
    expect(php.entries).toEqual([
      {
        time: '2026-11-29T10:05:00.000Z',
        level: 'warning',
        message: 'Undefined variable $x in /htdocs/a.php on line 2',
      },
    ])
    const error = (await (await get(`/sites/${siteId}/logs/error`)).json()) as { entries: unknown[] }
    expect(error.entries).toEqual([])
  })
})

describe('refusals', () => {
  test('bad lines, since and status are 422 at their place; an unknown kind is 404', async () => {
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?lines=0`),
      422,
      'validation_failed',
      'query.lines',
      'out_of_range',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?lines=5001`),
      422,
      'validation_failed',
      'query.lines',
      'out_of_range',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?lines=ten`),
      422,
      'validation_failed',
      'query.lines',
      'invalid_type',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?since=yesterday`),
      422,
      'validation_failed',
      'query.since',
      'invalid_since',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?since=2026-11-29`),
      422,
      'validation_failed',
      'query.since',
      'invalid_since',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?status=6xx`),
      422,
      'validation_failed',
      'query.status',
      'invalid_status_filter',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/access?status=500-400`),
      422,
      'validation_failed',
      'query.status',
      'invalid_status_filter',
    )
    await expectFieldProblem(
      await get(`/sites/${siteId}/logs/error?status=5xx`),
      422,
      'status_filter_not_applicable',
      'query.status',
    )
    await expectProblem(await get(`/sites/${siteId}/logs/mail`), 404, 'unknown_log_kind')
    await expectProblem(
      await get(`/sites/${siteId}/logs/access`, {
        headers: { accept: 'text/event-stream', 'last-event-id': 'nonsense' },
      }),
      400,
      'invalid_last_event_id',
    )
  })

  test('another customer’s site is 404; developers read logs, billing members and tokens without log:read are 403', async () => {
    const limited = await tp.token({ customerId })
    expect((await get(`/sites/${siteId}/logs/access`, { token: limited })).status).toBe(200)
    await expectProblem(await get(`/sites/${otherSiteId}/logs/access`, { token: limited }), 404, 'not_found')
    await expectProblem(await get(`/sites/${otherSiteId}/logs/mail`, { token: limited }), 404, 'not_found')
    for (const [role, status] of [
      ['developer', 200],
      ['billing', 403],
    ] as const) {
      const email = `${role}@logs.test`
      const user = await createTestUser(tp.panel.store.db, { email, staffRole: null })
      const added = await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
        token,
        body: { email, role },
      })
      expect(added.status).toBe(201)
      const member = await tp.token({ user })
      expect((await get(`/sites/${siteId}/logs/access`, { token: member })).status).toBe(status)
    }
    const narrow = await tp.token({ scopes: ['site:read'] })
    await expectProblem(
      await get(`/sites/${siteId}/logs/access`, { token: narrow }),
      403,
      'insufficient_scope',
    )
  })
})

/** Reads a stream's events until `enough` says so (or fails after 10 s). */
async function readEvents(body: ReadableStream<Uint8Array>, enough: (text: string) => boolean) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + 10_000
  while (!enough(text)) {
    if (Date.now() > deadline) throw new Error(`the stream said only: ${text}`)
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  await reader.cancel()
  return text
}

describe('following', () => {
  test('the last lines, then a line written after the stream opened; resumed after the last event id', async () => {
    const response = await get(`/sites/${siteId}/logs/access?lines=1`, {
      headers: { accept: 'text/event-stream' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    let written = false
    const text = await readEvents(response.body as ReadableStream<Uint8Array>, (sofar) => {
      if (!written && sofar.includes('/busy')) {
        appendFileSync(join(home, 'logs', 'access.log'), access(6, 201, '/after-open'))
        written = true
      }
      return sofar.includes('/after-open')
    })
    expect(text).toContain('event: entry')
    expect(text).not.toContain('/missing')
    const ids = [...text.matchAll(/^id: (\S+)$/gm)].map((match) => match[1])
    const last = ids.at(-1) as string
    appendFileSync(join(home, 'logs', 'access.log'), access(7, 202, '/while-away'))
    const resumed = await get(`/sites/${siteId}/logs/access`, {
      headers: { accept: 'text/event-stream', 'last-event-id': last },
    })
    const again = await readEvents(resumed.body as ReadableStream<Uint8Array>, (sofar) =>
      sofar.includes('/while-away'),
    )
    expect(again).not.toContain('/after-open')
  })

  test('a follow ends with an end event when the site is suspended', async () => {
    const { id } = await newSite('suspendme')
    const response = await get(`/sites/${id}/logs/access`, { headers: { accept: 'text/event-stream' } })
    expect(response.status).toBe(200)
    const suspended = await tp.request('POST', `/api/v1/sites/${id}/suspend`, {
      token,
      body: { reason: 'test' },
    })
    expect(suspended.status).toBeLessThan(300)
    const text = await readEvents(response.body as ReadableStream<Uint8Array>, (sofar) =>
      sofar.includes('event: end'),
    )
    expect(text).toContain('"reason":"site_suspended"')
    // A suspended site's logs are read, not followed.
    expect((await get(`/sites/${id}/logs/access`)).status).toBe(200)
    await expectProblem(
      await get(`/sites/${id}/logs/access`, { headers: { accept: 'text/event-stream' } }),
      409,
      'site_suspended',
    )
  })
})

describe('follows at once', () => {
  test('a site’s logs are followed by at most 10 streams at once; one closed frees its place', async () => {
    const { id } = await newSite('crowded')
    const follow = () => get(`/sites/${id}/logs/access`, { headers: { accept: 'text/event-stream' } })
    const streams: Response[] = []
    for (let index = 0; index < 10; index++) {
      const response = await follow()
      expect(response.status).toBe(200)
      streams.push(response)
    }
    await expectProblem(await follow(), 429, 'log_follow_limit')
    // Reading the last lines as JSON is not following.
    expect((await get(`/sites/${id}/logs/access`)).status).toBe(200)
    await (streams.pop() as Response).body?.cancel()
    const again = await waitFor('a place freed', async () => {
      const response = await follow()
      if (response.status === 200) return response
      await response.body?.cancel()
      await Bun.sleep(20)
      return null
    })
    streams.push(again)
    for (const response of streams) await response.body?.cancel()
  })
})

describe('access lost while following', () => {
  test('a follow ends access_revoked once its token is revoked, its user disabled or taken off the team', async () => {
    const member = async (email: string) => {
      const user = await createTestUser(tp.panel.store.db, { email, staffRole: null })
      const added = await tp.request('POST', `/api/v1/customers/${customerId}/members`, {
        token,
        body: { email, role: 'developer' },
      })
      expect(added.status).toBe(201)
      return { user, token: await tp.token({ user, customerId }) }
    }
    const follow = async (as: string) => {
      const response = await get(`/sites/${siteId}/logs/access?lines=1`, {
        token: as,
        headers: { accept: 'text/event-stream' },
      })
      expect(response.status).toBe(200)
      return response.body as ReadableStream<Uint8Array>
    }
    const ended = (body: ReadableStream<Uint8Array>) =>
      readEvents(body, (sofar) => sofar.includes('event: end'))

    const revoked = await member('revoked@logs.test')
    const first = await follow(revoked.token)
    const tokens = (await (
      await tp.request('GET', `/api/v1/users/${revoked.user.id}/api-tokens`, { token })
    ).json()) as { items: { id: string }[] }
    for (const item of tokens.items) {
      const gone = await tp.request('DELETE', `/api/v1/users/${revoked.user.id}/api-tokens/${item.id}`, {
        token,
      })
      expect(gone.status).toBeLessThan(300)
    }
    expect(await ended(first)).toContain('"reason":"access_revoked"')

    const disabled = await member('disabled@logs.test')
    const second = await follow(disabled.token)
    expect((await tp.request('POST', `/api/v1/users/${disabled.user.id}/disable`, { token })).status).toBe(
      200,
    )
    expect(await ended(second)).toContain('"reason":"access_revoked"')

    const removed = await member('removed@logs.test')
    const third = await follow(removed.token)
    const off = await tp.request('DELETE', `/api/v1/customers/${customerId}/members/${removed.user.id}`, {
      token,
    })
    expect(off.status).toBeLessThan(300)
    expect(await ended(third)).toContain('"reason":"access_revoked"')
  })
})
