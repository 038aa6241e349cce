// The redirects and headers API on both stores, without a node's work: every refusal with its code at its field
// (the injections an attacker would try among them), nothing stored lost by a refusal, duplicates and the per-site
// cap, tenancy (404), scopes, audit entries and events, the site's update job started by each change, and what a
// site's serving part gives its node. Redirects served by nginx are redirects.e2e.test.ts's (node side).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
  temporaryDataDir,
  waitFor,
} from '../../hosts/testing/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Redirect, SiteHeaders } from './contract.ts'
import { redirectsPlugin } from './index.ts'

let tp: TestPanel
let staff: string
let customerId: string
let siteId: string
const domain = 'redirects-store.test'
// The local node lays out sites' files only (no nginx here), but writes their server blocks all the same.
const nodeDir = temporaryDataDir()

async function call(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  return tp.request(method, `/api/v1${path}`, { token: staff, ...options })
}
async function ok<T>(
  status: number,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
) {
  const answer = await call(method, path, options)
  const text = await answer.text()
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${text}`)
  return (text ? JSON.parse(text) : null) as T
}
const listed = async (site = siteId) =>
  (await ok<Page<Redirect>>(200, 'GET', `/sites/${site}/redirects?limit=100`)).items

/** An active site of `customer`. */
async function activeSite(customer: string, name: string): Promise<string> {
  const site = await ok<{ id: string }>(201, 'POST', '/sites', {
    body: { customerId: customer, name, type: 'wordpress', domain: `${name}.test` },
  })
  await waitFor(`site ${site.id} to be active`, async () => {
    const { status } = await ok<{ status: string }>(200, 'GET', `/sites/${site.id}`)
    if (status === 'active') return true
    await Bun.sleep(20)
    return null
  })
  return site.id
}

/** The site's jobs of `kind`, newest first. */
async function siteJobs(site: string) {
  const rows = await tp.panel.store.db
    .withTables<{ jobs: { id: string; kind: string; subject_id: string } }>()
    .selectFrom('jobs')
    .select(['id', 'kind'])
    .where('subject_id', '=', site)
    .execute()
  return rows.map((row) => row.kind)
}

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [nodesPlugin({ dataDir: nodeDir }), redirectsPlugin({ maxRedirectsPerSite: 5 })],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  staff = await tp.token()
  customerId = (await ok<{ id: string }>(201, 'POST', '/customers', { body: { name: 'Redirecting' } })).id
  siteId = await activeSite(customerId, 'redirects-store')
})
afterAll(() => tp.panel.close())

describe('redirects', () => {
  test('are added, listed, read, changed and deleted, each change audited, announced and carried by a site.update job', async () => {
    const before = (await siteJobs(siteId)).filter((kind) => kind === 'site.update').length
    const made = await ok<Redirect>(201, 'POST', `/sites/${siteId}/redirects`, {
      body: { from: '/old', to: '/new' },
    })
    expect(made).toMatchObject({ siteId, customerId, from: '/old', match: 'exact', to: '/new', code: 301 })
    expect(made.id).toMatch(/^rdr_/)
    expect(await ok<Redirect>(200, 'GET', `/sites/${siteId}/redirects/${made.id}`)).toEqual(made)
    const changed = await ok<Redirect>(200, 'PATCH', `/sites/${siteId}/redirects/${made.id}`, {
      body: { code: 308, to: 'https://example.org/new?x=1' },
    })
    expect(changed).toMatchObject({ code: 308, to: 'https://example.org/new?x=1', from: '/old' })
    expect(await listed()).toEqual([changed])
    await ok(204, 'DELETE', `/sites/${siteId}/redirects/${made.id}`)
    expect(await listed()).toEqual([])
    const audit = await ok<Page<{ action: string; customerId: string }>>(
      200,
      'GET',
      `/audit?subject=${made.id}`,
    )
    expect(audit.items.map((entry) => entry.action)).toEqual([
      'redirect.delete',
      'redirect.update',
      'redirect.create',
    ])
    expect(audit.items.every((entry) => entry.customerId === customerId)).toBe(true)
    const kinds = await tp.panel.store.db
      .withTables<{ event_outbox: { id: string; kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .select(['kind', 'payload'])
      .where('kind', 'like', 'redirect.%')
      // In the order they happened: PostgreSQL answers an unordered read in no order.
      .orderBy('id')
      .execute()
    expect(kinds.filter((event) => event.payload.includes(made.id)).map((event) => event.kind)).toEqual([
      'redirect.created',
      'redirect.updated',
      'redirect.deleted',
    ])
    const after = (await siteJobs(siteId)).filter((kind) => kind === 'site.update').length
    expect(after - before).toBe(3)
  })

  test.each([
    ['body.from', 'invalid_redirect_path', { from: 'old' }],
    ['body.from', 'invalid_redirect_path', { from: '/x; return 200' }],
    ['body.from', 'invalid_redirect_path', { from: '/x;return' }],
    ['body.from', 'invalid_redirect_path', { from: '/a\nreturn 200;' }],
    ['body.from', 'invalid_redirect_path', { from: '/a"b' }],
    ['body.from', 'invalid_redirect_path', { from: '/$host' }],
    ['body.from', 'invalid_redirect_path', { from: '/a{b}' }],
    ['body.from', 'invalid_redirect_path', { from: '/a\\b' }],
    ['body.from', 'invalid_redirect_path', { from: '/a b' }],
    ['body.from', 'invalid_redirect_path', { from: '/caf\u00e9' }],
    ['body.from', 'invalid_redirect_path', { from: '/a\u2028b' }],
    ['body.from', 'invalid_redirect_path', { from: '/a%zz' }],
    ['body.from', 'unsafe_redirect_path', { from: '/a%22b' }],
    ['body.from', 'unsafe_redirect_path', { from: '/a%0Aserver' }],
    ['body.from', 'unsafe_redirect_path', { from: '/a%00' }],
    ['body.from', 'unsafe_redirect_path', { from: '/%24host' }],
    ['body.from', 'unsafe_redirect_path', { from: '/a%3Bb' }],
    ['body.from', 'unsafe_redirect_path', { from: '/a%E2%80%A8b' }],
    ['body.from', 'unsafe_redirect_path', { from: '/a%C3' }],
    ['body.from', 'redirect_path_query', { from: '/a?b=1' }],
    ['body.from', 'redirect_path_query', { from: '/a#top' }],
    ['body.from', 'redirect_path_not_normalised', { from: '/a//b' }],
    ['body.from', 'redirect_path_not_normalised', { from: '/a/../b' }],
    ['body.from', 'redirect_path_not_normalised', { from: '/a/%2E%2E/b' }],
    ['body.from', 'reserved_redirect_path', { from: '/.well-known/acme-challenge/x' }],
    ['body.from', 'reserved_redirect_path', { from: '/', match: 'prefix', to: 'https://example.org/' }],
    ['body.to', 'invalid_redirect_target', { to: 'new' }],
    ['body.to', 'invalid_redirect_target', { to: '//evil.example/x' }],
    ['body.to', 'invalid_redirect_target', { to: '/new\r\nSet-Cookie: a=b' }],
    ['body.to', 'invalid_redirect_target', { to: '/new$host' }],
    ['body.to', 'invalid_redirect_target', { to: '/new"; return 200 "x' }],
    ['body.to', 'invalid_redirect_target', { to: '/new{x}' }],
    ['body.to', 'invalid_redirect_target', { to: 'https://exa mple.org/' }],
    ['body.to', 'invalid_redirect_target', { to: 'https:///nohost' }],
    ['body.to', 'invalid_redirect_target', { to: 'https://example.org/caf\u00e9' }],
    ['body.to', 'redirect_target_scheme', { to: 'javascript:alert(1)' }],
    ['body.to', 'redirect_target_scheme', { to: 'JavaScript:alert(1)' }],
    ['body.to', 'redirect_target_scheme', { to: 'data:text/html,x' }],
    ['body.to', 'redirect_target_scheme', { to: 'ftp://example.org/' }],
    ['body.to', 'redirect_target_credentials', { to: 'https://user:pw@example.org/' }],
    ['body.to', 'redirect_loop', { from: '/same', to: '/same' }],
    ['body.to', 'redirect_loop', { from: '/same', to: '/same?x=1' }],
    ['body.to', 'redirect_loop', { from: '/blog/', match: 'prefix', to: '/blog/new/' }],
    ['body.to', 'redirect_loop', { from: '/here', to: `https://${domain}/here` }],
  ])('a redirect refused at %s with %s: %j', async (at, code, fields) => {
    const body = { from: '/source', to: '/target', ...fields }
    await expectFieldProblem(await call('POST', `/sites/${siteId}/redirects`, { body }), 422, code, at)
  })

  test('every refusal of one body is answered at once, and a refused change keeps what was stored', async () => {
    const kept = await ok<Redirect>(201, 'POST', `/sites/${siteId}/redirects`, {
      body: { from: '/kept', to: '/k' },
    })
    const answer = await call('PATCH', `/sites/${siteId}/redirects/${kept.id}`, {
      body: { from: '/a;b', to: 'javascript:x' },
    })
    const problem = await expectProblem(answer, 422, 'validation_failed')
    expect(problem.errors?.map((error) => [error.location, error.code])).toEqual([
      ['body.from', 'invalid_redirect_path'],
      ['body.to', 'redirect_target_scheme'],
    ])
    expect(await ok<Redirect>(200, 'GET', `/sites/${siteId}/redirects/${kept.id}`)).toEqual(kept)
    await ok(204, 'DELETE', `/sites/${siteId}/redirects/${kept.id}`)
  })

  test('a target that is an origin alone is kept with its path /', async () => {
    const made = await ok<Redirect>(201, 'POST', `/sites/${siteId}/redirects`, {
      body: { from: '/moved/', match: 'prefix', to: 'https://example.org' },
    })
    expect(made.to).toBe('https://example.org/')
    await ok(204, 'DELETE', `/sites/${siteId}/redirects/${made.id}`)
  })

  test('unknown match or code, unknown fields and overlong values are refused by the schema', async () => {
    for (const body of [
      { from: `/${'a'.repeat(1024)}`, to: '/b' },
      { from: '/a', to: `/${'b'.repeat(2048)}` },
      { from: '/a', to: '/b', match: 'regex' },
      { from: '/a', to: '/b', code: 303 },
      { from: '/a', to: '/b', code: '301' },
      { from: '/a', to: '/b', extra: 1 },
    ])
      expect((await call('POST', `/sites/${siteId}/redirects`, { body })).status).toBe(422)
  })

  test('a path repeated (compared decoded) is 409 duplicate_redirect; the other match of it is fine', async () => {
    const first = await ok<Redirect>(201, 'POST', `/sites/${siteId}/redirects`, {
      body: { from: '/caf%C3%A9', to: '/coffee' },
    })
    await expectProblem(
      await call('POST', `/sites/${siteId}/redirects`, { body: { from: '/caf%c3%a9', to: '/tea' } }),
      409,
      'duplicate_redirect',
    )
    const prefix = await ok<Redirect>(201, 'POST', `/sites/${siteId}/redirects`, {
      body: { from: '/caf%C3%A9', match: 'prefix', to: '/coffee', code: 302 },
    })
    // Changing another into the same path is refused as well.
    await expectProblem(
      await call('PATCH', `/sites/${siteId}/redirects/${prefix.id}`, { body: { match: 'exact' } }),
      409,
      'duplicate_redirect',
    )
    for (const made of [first, prefix]) await ok(204, 'DELETE', `/sites/${siteId}/redirects/${made.id}`)
  })

  test('a site takes at most maxRedirectsPerSite: the next is 422 redirect_limit_reached with the limit', async () => {
    const site = await activeSite(customerId, 'redirects-cap')
    for (let index = 0; index < 5; index++)
      await ok(201, 'POST', `/sites/${site}/redirects`, { body: { from: `/p${index}`, to: '/' } })
    const refused = await expectProblem(
      await call('POST', `/sites/${site}/redirects`, { body: { from: '/p5', to: '/' } }),
      422,
      'redirect_limit_reached',
    )
    expect(refused).toMatchObject({ limit: 5 })
    expect(await listed(site)).toHaveLength(5)
  })
})

describe('headers', () => {
  test('are replaced as a whole, read back, audited once per change, and a repeat changes nothing', async () => {
    expect(await ok<SiteHeaders>(200, 'GET', `/sites/${siteId}/headers`)).toEqual({
      siteId,
      customerId,
      headers: [],
      updatedAt: null,
    })
    const headers = [
      { name: 'X-Frame-Options', value: 'DENY' },
      { name: 'Content-Security-Policy', value: "default-src 'self'; img-src * data:" },
      { name: 'Strict-Transport-Security', value: 'max-age=63072000; includeSubDomains' },
    ]
    const put = await ok<SiteHeaders>(200, 'PUT', `/sites/${siteId}/headers`, { body: { headers } })
    expect(put.headers).toEqual(headers)
    expect(await ok<SiteHeaders>(200, 'GET', `/sites/${siteId}/headers`)).toEqual(put)
    await ok(200, 'PUT', `/sites/${siteId}/headers`, { body: { headers } })
    const audit = await ok<Page<{ action: string; details: { names: string[] } }>>(
      200,
      'GET',
      `/audit?subject=${siteId}&action=site_headers.update`,
    )
    expect(audit.items.map((entry) => entry.details.names)).toEqual([headers.map((header) => header.name)])
  })

  test.each([
    ['name', 'invalid_header_name', { name: 'X Bad', value: 'v' }],
    ['name', 'invalid_header_name', { name: 'X-A:b', value: 'v' }],
    ['name', 'invalid_header_name', { name: 'X-$host', value: 'v' }],
    ['name', 'invalid_header_name', { name: 'X-"q"', value: 'v' }],
    ['name', 'invalid_header_name', { name: 'X-A\r\nSet-Cookie', value: 'v' }],
    ['name', 'reserved_header', { name: 'Set-Cookie', value: 'a=b' }],
    ['name', 'reserved_header', { name: 'content-length', value: '1' }],
    ['name', 'reserved_header', { name: 'Transfer-Encoding', value: 'chunked' }],
    ['name', 'reserved_header', { name: 'Connection', value: 'close' }],
    ['name', 'reserved_header', { name: 'Server', value: 'x' }],
    ['name', 'reserved_header', { name: 'X-Cache', value: 'HIT' }],
    ['name', 'reserved_header', { name: 'X-Accel-Redirect', value: '/etc/passwd' }],
    ['name', 'reserved_header', { name: 'Location', value: '/x' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: 'a"b' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: 'a\\b' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: '$host' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: 'a\r\nSet-Cookie: x=y' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: 'a\u2028b' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: 'caf\u00e9' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: ' padded' }],
    ['value', 'invalid_header_value', { name: 'X-A', value: 'a\tb' }],
  ])('a header refused at its %s with %s: %j', async (field, code, header) => {
    const body = { headers: [{ name: 'X-Fine', value: 'ok' }, header] }
    await expectFieldProblem(
      await call('PUT', `/sites/${siteId}/headers`, { body }),
      422,
      code,
      `body.headers.1.${field}`,
    )
  })

  test('a name given twice (any case) is refused at the second, and a refusal keeps the headers stored', async () => {
    const before = await ok<SiteHeaders>(200, 'GET', `/sites/${siteId}/headers`)
    const body = {
      headers: [
        { name: 'Referrer-Policy', value: 'no-referrer' },
        { name: 'referrer-policy', value: 'origin' },
      ],
    }
    await expectFieldProblem(
      await call('PUT', `/sites/${siteId}/headers`, { body }),
      422,
      'duplicate_header',
      'body.headers.1.name',
    )
    expect(await ok<SiteHeaders>(200, 'GET', `/sites/${siteId}/headers`)).toEqual(before)
  })

  test('more than 32 headers are refused by the schema', async () => {
    const headers = Array.from({ length: 33 }, (_, index) => ({ name: `X-H${index}`, value: 'v' }))
    expect((await call('PUT', `/sites/${siteId}/headers`, { body: { headers } })).status).toBe(422)
  })
})

describe('who may', () => {
  test('another customer’s token sees none of it: 404 everywhere, nothing changed', async () => {
    const made = await ok<Redirect>(201, 'POST', `/sites/${siteId}/redirects`, {
      body: { from: '/own', to: '/x' },
    })
    const other = (await ok<{ id: string }>(201, 'POST', '/customers', { body: { name: 'Outsider' } })).id
    const outsider = await tp.token({ customerId: other })
    const attempts: [string, string, unknown?][] = [
      ['GET', `/sites/${siteId}/redirects`],
      ['GET', `/sites/${siteId}/redirects/${made.id}`],
      ['POST', `/sites/${siteId}/redirects`, { from: '/x', to: '/y' }],
      ['PATCH', `/sites/${siteId}/redirects/${made.id}`, { to: '/z' }],
      ['DELETE', `/sites/${siteId}/redirects/${made.id}`],
      ['GET', `/sites/${siteId}/headers`],
      ['PUT', `/sites/${siteId}/headers`, { headers: [] }],
    ]
    for (const [method, path, body] of attempts)
      await expectProblem(await call(method, path, { token: outsider, body }), 404, 'not_found')
    // A redirect of one site is not found under another.
    const second = await activeSite(customerId, 'redirects-second')
    await expectProblem(await call('GET', `/sites/${second}/redirects/${made.id}`), 404, 'not_found')
    expect(await ok<Redirect>(200, 'GET', `/sites/${siteId}/redirects/${made.id}`)).toEqual(made)
  })

  test('site:read reads, site:update changes; a token with site:read alone is 403', async () => {
    const reader = await tp.token({ scopes: ['site:read'] })
    await ok(200, 'GET', `/sites/${siteId}/redirects`, { token: reader })
    await ok(200, 'GET', `/sites/${siteId}/headers`, { token: reader })
    await expectProblem(
      await call('POST', `/sites/${siteId}/redirects`, { token: reader, body: { from: '/r', to: '/s' } }),
      403,
      'insufficient_scope',
    )
    await expectProblem(
      await call('PUT', `/sites/${siteId}/headers`, { token: reader, body: { headers: [] } }),
      403,
      'insufficient_scope',
    )
    const roles = tp.panel.catalogue.roles
    for (const role of ['owner', 'admin', 'developer'])
      expect(roles.find((entry) => entry.role === role)?.scopes).toEqual(
        expect.arrayContaining(['site:read', 'site:update']),
      )
  })
})

describe('the site’s node is told', () => {
  test('a change reaches the node’s server block through the site’s update job', async () => {
    const site = await activeSite(customerId, 'redirects-node')
    await ok(201, 'POST', `/sites/${site}/redirects`, { body: { from: '/old', to: '/new' } })
    await ok(200, 'PUT', `/sites/${site}/headers`, {
      body: { headers: [{ name: 'X-Frame-Options', value: 'DENY' }] },
    })
    const { jobId } = await ok<{ jobId: string }>(200, 'GET', `/sites/${site}`)
    await waitFor('the site’s update job', async () => {
      const { status } = await ok<{ status: string }>(200, 'GET', `/jobs/${jobId}`)
      if (status === 'succeeded') return true
      await Bun.sleep(20)
      return null
    })
    const block = readFileSync(join(nodeDir, 'nginx', 'sites', `${site}.conf`), 'utf8')
    expect(block).toContain('location = "/old" {\n        return 301 "/new$is_args$args";\n    }')
    expect(block).toContain('add_header "X-Frame-Options" "DENY" always;')
  })

  test('the serving part gives exact redirects first, then prefixes longest first, and the headers', async () => {
    const site = await activeSite(customerId, 'redirects-order')
    for (const body of [
      { from: '/a/', match: 'prefix', to: '/x' },
      { from: '/a/b/c/', match: 'prefix', to: '/y' },
      { from: '/a/b', to: '/z', code: 307 },
    ])
      await ok(201, 'POST', `/sites/${site}/redirects`, { body })
    await ok(200, 'PUT', `/sites/${site}/headers`, {
      body: { headers: [{ name: 'X-Frame-Options', value: 'DENY' }] },
    })
    const { redirectsServingPart } = await import('./serving-part.ts')
    const ref = { id: site, customerId } as Parameters<typeof redirectsServingPart.read>[1]
    expect(await redirectsServingPart.read(tp.panel.store.db, ref)).toEqual({
      redirects: [
        { from: '/a/b', match: 'exact', to: '/z', code: 307 },
        { from: '/a/b/c/', match: 'prefix', to: '/y', code: 301 },
        { from: '/a/', match: 'prefix', to: '/x', code: 301 },
      ],
      headers: [{ name: 'X-Frame-Options', value: 'DENY' }],
    })
  })

  test('a deleted site takes its redirects and headers with it', async () => {
    const site = await activeSite(customerId, 'redirects-gone')
    await ok(201, 'POST', `/sites/${site}/redirects`, { body: { from: '/a', to: '/b' } })
    await ok(200, 'PUT', `/sites/${site}/headers`, { body: { headers: [{ name: 'X-A', value: 'b' }] } })
    await ok(202, 'DELETE', `/sites/${site}`)
    const db = tp.panel.store.db.withTables<{
      site_redirects: { siteId: string }
      site_headers: { siteId: string }
    }>()
    await waitFor('the site’s redirects and headers to go', async () => {
      const left = [
        ...(await db.selectFrom('site_redirects').select('siteId').where('siteId', '=', site).execute()),
        ...(await db.selectFrom('site_headers').select('siteId').where('siteId', '=', site).execute()),
      ]
      if (left.length === 0) return true
      await Bun.sleep(20)
      return null
    })
  })

  test('a deleted customer takes its sites’ redirects and headers with it', async () => {
    const gone = (await ok<{ id: string }>(201, 'POST', '/customers', { body: { name: 'Leaving' } })).id
    const site = await activeSite(gone, 'redirects-leaving')
    await ok(201, 'POST', `/sites/${site}/redirects`, { body: { from: '/a', to: '/b' } })
    await ok(200, 'PUT', `/sites/${site}/headers`, { body: { headers: [{ name: 'X-A', value: 'b' }] } })
    await ok(202, 'DELETE', `/customers/${gone}`)
    const db = tp.panel.store.db.withTables<{
      site_redirects: { customerId: string }
      site_headers: { customerId: string }
    }>()
    await waitFor('the customer’s redirects and headers to go', async () => {
      const left = [
        ...(await db
          .selectFrom('site_redirects')
          .select('customerId')
          .where('customerId', '=', gone)
          .execute()),
        ...(await db
          .selectFrom('site_headers')
          .select('customerId')
          .where('customerId', '=', gone)
          .execute()),
      ]
      if (left.length === 0) return true
      await Bun.sleep(20)
      return null
    })
  })
})
