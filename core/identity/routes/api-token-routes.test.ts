// POST, GET and DELETE /api/v1/api-tokens as a client sees them, and the list cursors they hand out.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from '../../pagination/paginate.ts'
import { tenancy } from '../../tenancy/tenancy.ts'
import { createKernelTestPanel, type TestPanel } from '../../testing/create-test-panel.ts'
import { expectFieldProblem, expectProblem } from '../../testing/problems.ts'
import { login, sameOrigin } from '../../testing/sessions.ts'
import { brandA, customerA, customerB, fixturePlugin, twoTenants } from '../../testing/tenancy-fixture.ts'
import { createTestUser, testPassword } from '../../testing/users.ts'
import type { User } from '../users.ts'

/** Two brands with one customer each, standing in for the brands and customers plugins. */
const tenancyPlugin = fixturePlugin({
  description: 'Brands, customers and scopes for the token tests.',
  scopes: ['gadget:read', 'gadget:create', 'customer:manage', 'widget:admin', 'widget:create'],
  tenants: twoTenants,
})

interface TokenBody {
  readonly id: string
  readonly name: string
  readonly scopes: readonly string[]
  readonly customerId: string | null
  readonly expiresAt: string
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly token?: string
}

const dayMs = 86_400_000

/** The `errors[]` of a refused token request as `[location, code]` pairs. */
async function refusals(response: Response): Promise<string[][]> {
  const body = await expectProblem(response, 422, 'validation_failed')
  return (body.errors ?? []).map((item) => [item.location, item.code])
}

let tp: TestPanel
let staff: User
let otherStaff: User
let brandStaff: User
let member: User
let staffToken: string

function createToken(token: string, body: Record<string, unknown>): Promise<Response> {
  return tp.request('POST', '/api/v1/api-tokens', { token, body: { name: 'test', ...body } })
}

async function created(response: Response): Promise<TokenBody & { token: string }> {
  expect(response.status).toBe(201)
  return (await response.json()) as TokenBody & { token: string }
}

async function listTokens(token: string, query = ''): Promise<Page<TokenBody>> {
  const response = await tp.request('GET', `/api/v1/api-tokens${query}`, { token })
  expect(response.status).toBe(200)
  return (await response.json()) as Page<TokenBody>
}

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [tenancyPlugin] })
  const db = tp.panel.store.db
  ;[staff, otherStaff, brandStaff, member] = await Promise.all([
    tp.staff(),
    createTestUser(db, { email: 'other-staff@example.test', staffRole: 'platform' }),
    createTestUser(db, { email: 'brand-a@example.test', staffRole: 'brand', brandId: brandA }),
    createTestUser(db, { email: 'member@example.test', staffRole: null }),
  ])
  await tenancy.members.add(db, customerA, member.id, 'developer')
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

describe('creating a token', () => {
  test('a session creates a token: 201, Location, the secret shown once, and it works as a Bearer token', async () => {
    const loginResponse = await login(tp, staff.email, testPassword)
    const { csrfToken } = (await loginResponse.json()) as { csrfToken: string }
    const cookie = (loginResponse.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const response = await tp.request('POST', '/api/v1/api-tokens', {
      headers: sameOrigin({ cookie, csrfToken }),
      body: { name: 'deploy bot', scopes: ['gadget:read'] },
    })
    const token = await created(response)
    expect(token).toEqual({
      id: expect.stringMatching(/^tok_[0-9A-Z]{26}$/),
      name: 'deploy bot',
      scopes: ['gadget:read'],
      customerId: null,
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
      lastUsedAt: null,
      token: expect.stringMatching(/^plinth_[0-9A-Za-z]{36}$/),
    })
    expect(response.headers.get('location')).toBe(`/api/v1/api-tokens/${token.id}`)
    // Default lifetime: 90 days.
    expect(Date.parse(token.expiresAt) - Date.now()).toBeWithin(90 * dayMs - 60_000, 90 * dayMs + 1)

    const me = await tp.request('GET', '/api/v1/me', { token: token.token })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { token: { id: string } }).token.id).toBe(token.id)
    // The Location reads back, without the secret.
    const read = await tp.request('GET', `/api/v1/api-tokens/${token.id}`, { headers: { cookie } })
    const { token: _secret, ...shown } = token
    expect(await read.json()).toEqual({ ...shown, lastUsedAt: expect.any(String) })
  })

  test('a * token creates a token limited to a customer in its view, with the expiry asked for', async () => {
    const expiresAt = new Date(Date.now() + 364 * dayMs).toISOString()
    const token = await created(
      await createToken(staffToken, { scopes: ['*'], customerId: customerB, expiresAt }),
    )
    expect(token).toMatchObject({ scopes: ['*'], customerId: customerB, expiresAt })
  })

  test('a member creates a token limited to a customer of their team', async () => {
    const memberToken = await tp.token({ user: member })
    const token = await created(
      await createToken(memberToken, { scopes: ['gadget:read'], customerId: customerA }),
    )
    expect(token.customerId).toBe(customerA)
  })

  test('a token without * can neither create nor revoke tokens: 403 wildcard_token_required', async () => {
    const narrow = await tp.token({ scopes: ['gadget:read', 'gadget:create'] })
    await expectProblem(
      await createToken(narrow, { scopes: ['gadget:read'] }),
      403,
      'wildcard_token_required',
    )
    const victim = await created(await createToken(staffToken, { scopes: ['gadget:read'] }))
    const revoke = await tp.request('DELETE', `/api/v1/api-tokens/${victim.id}`, { token: narrow })
    await expectProblem(revoke, 403, 'wildcard_token_required')
    expect((await tp.request('GET', '/api/v1/me', { token: victim.token })).status).toBe(200)
  })

  test('a scope the creator does not hold is 422 scope_not_held at its index', async () => {
    const brandToken = await tp.token({ user: brandStaff })
    expect(
      await refusals(await createToken(brandToken, { scopes: ['gadget:read', 'widget:create'] })),
    ).toEqual([['body.scopes.1', 'scope_not_held']])
    const memberToken = await tp.token({ user: member })
    expect(
      await refusals(await createToken(memberToken, { scopes: ['widget:admin', 'gadget:read'] })),
    ).toEqual([['body.scopes.0', 'scope_not_held']])
  })

  test('a scope no plugin declares is 422 unknown_scope at its index', async () => {
    expect(await refusals(await createToken(staffToken, { scopes: ['gadget:read', 'gadget:fly'] }))).toEqual([
      ['body.scopes.1', 'unknown_scope'],
    ])
  })

  test('a customer outside the creator’s view is 422 unknown_customer at body.customerId', async () => {
    const outside = [
      [await tp.token({ user: brandStaff }), customerB],
      [await tp.token({ user: member }), customerB],
      [staffToken, 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SZZ'],
    ] as const
    for (const [token, customerId] of outside) {
      expect(await refusals(await createToken(token, { scopes: ['gadget:read'], customerId }))).toEqual([
        ['body.customerId', 'unknown_customer'],
      ])
    }
  })

  test('an expiry with a date but no time is 422 invalid_format, not midnight of some time zone', async () => {
    const response = await createToken(staffToken, { scopes: ['*'], expiresAt: '2027-01-01' })
    const body = await expectProblem(response, 422, 'validation_failed')
    expect(body.errors).toEqual([
      expect.objectContaining({ location: 'body.expiresAt', code: 'invalid_format' }),
    ])
  })

  test('an expiry in the past is 422 expiry_in_past', async () => {
    const expiresAt = new Date(Date.now() - 60_000).toISOString()
    expect(await refusals(await createToken(staffToken, { scopes: ['*'], expiresAt }))).toEqual([
      ['body.expiresAt', 'expiry_in_past'],
    ])
  })

  test('an expiry more than 365 days away is 422 lifetime_too_long', async () => {
    const expiresAt = new Date(Date.now() + 366 * dayMs).toISOString()
    expect(await refusals(await createToken(staffToken, { scopes: ['*'], expiresAt }))).toEqual([
      ['body.expiresAt', 'lifetime_too_long'],
    ])
  })

  test('every refused field of one request is reported together', async () => {
    const brandToken = await tp.token({ user: brandStaff })
    const response = await createToken(brandToken, {
      scopes: ['gadget:fly', 'widget:create'],
      customerId: customerB,
      expiresAt: '2001-01-01T00:00:00Z',
    })
    expect(await refusals(response)).toEqual([
      ['body.scopes.0', 'unknown_scope'],
      ['body.scopes.1', 'scope_not_held'],
      ['body.customerId', 'unknown_customer'],
      ['body.expiresAt', 'expiry_in_past'],
    ])
  })

  test('a token limited to a customer cannot mint a token, even one limited to the same customer (wildcard_token_required)', async () => {
    // Found by review: a `*` token limited to one customer used to mint an unlimited token.
    const limited = await tp.token({ customerId: customerA })
    for (const body of [{ scopes: ['*'] }, { scopes: ['*'], customerId: customerA }]) {
      const response = await createToken(limited, body)
      expect(response.status).toBe(403)
      expect(((await response.json()) as { code: string }).code).toBe('wildcard_token_required')
    }
  })
})

describe('listing tokens', () => {
  test('lists the caller’s own live tokens, never their secrets', async () => {
    const user = await createTestUser(tp.panel.store.db, {
      email: 'lister@example.test',
      staffRole: 'platform',
    })
    const own = await tp.token({ user })
    await created(await createToken(own, { name: 'one', scopes: ['gadget:read'] }))
    const { token: _secret, ...two } = await created(await createToken(own, { name: 'two', scopes: ['*'] }))
    await created(await createToken(staffToken, { name: 'not yours', scopes: ['*'] }))

    const page = await listTokens(own)
    expect(page.nextCursor).toBeNull()
    expect(page.items.map((item) => item.name)).toEqual(['test', 'one', 'two'])
    for (const item of page.items) {
      expect(Object.keys(item).sort()).toEqual([
        'createdAt',
        'customerId',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'scopes',
      ])
    }
    expect(page.items[2]).toEqual(two)
  })

  test('a token limited to a customer lists only the tokens limited to that customer', async () => {
    // Found by the tenancy property test: listing showed tokens limited to other customers, and so their ids.
    const user = await createTestUser(tp.panel.store.db, { email: 'two-teams@example.test', staffRole: null })
    await tenancy.members.add(tp.panel.store.db, customerA, user.id, 'owner')
    await tenancy.members.add(tp.panel.store.db, customerB, user.id, 'owner')
    const forA = await tp.token({ user, customerId: customerA })
    await tp.token({ user, customerId: customerB })
    await tp.token({ user })
    const page = await listTokens(forA)
    expect(page.items.map((item) => item.customerId)).toEqual([customerA])
  })
})

describe('revoking a token', () => {
  test('answers 204; the token is then 401 invalid_token and gone from the list', async () => {
    const token = await created(await createToken(staffToken, { name: 'short-lived', scopes: ['*'] }))
    const response = await tp.request('DELETE', `/api/v1/api-tokens/${token.id}`, { token: staffToken })
    expect(response.status).toBe(204)
    const refused = await tp.request('GET', '/api/v1/me', { token: token.token })
    await expectProblem(refused, 401, 'invalid_token')
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    const all = await listTokens(staffToken, '?limit=100')
    expect(all.items.map((item) => item.id)).not.toContain(token.id)
    const again = await tp.request('DELETE', `/api/v1/api-tokens/${token.id}`, { token: staffToken })
    await expectProblem(again, 404, 'not_found')
  })

  test('a token may revoke itself', async () => {
    const token = await created(await createToken(staffToken, { scopes: ['*'] }))
    const response = await tp.request('DELETE', `/api/v1/api-tokens/${token.id}`, { token: token.token })
    expect(response.status).toBe(204)
    await expectProblem(await tp.request('GET', '/api/v1/me', { token: token.token }), 401, 'invalid_token')
  })

  test('revoking someone else’s token is 404, and it keeps working', async () => {
    const theirs = await created(
      await createToken(await tp.token({ user: otherStaff }), { name: 'theirs', scopes: ['*'] }),
    )
    const response = await tp.request('DELETE', `/api/v1/api-tokens/${theirs.id}`, { token: staffToken })
    await expectProblem(response, 404, 'not_found')
    expect((await tp.request('GET', '/api/v1/me', { token: theirs.token })).status).toBe(200)
  })

  test('an unknown or malformed token id is 404', async () => {
    for (const id of ['tok_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'not-a-token-id']) {
      const response = await tp.request('DELETE', `/api/v1/api-tokens/${id}`, { token: staffToken })
      await expectProblem(response, 404, 'not_found')
    }
  })
})

describe('list cursors', () => {
  let walker: string
  let firstPage: Page<TokenBody>

  beforeAll(async () => {
    walker = await tp.token({ user: otherStaff })
    for (const name of ['a', 'b']) await created(await createToken(walker, { name, scopes: ['*'] }))
    firstPage = await listTokens(walker, '?limit=1')
  })

  test('a nextCursor leads through the list page by page, each item once', async () => {
    const ids = firstPage.items.map((item) => item.id)
    let cursor = firstPage.nextCursor
    expect(cursor).toBeString()
    while (cursor) {
      const page = await listTokens(walker, `?limit=1&cursor=${encodeURIComponent(cursor)}`)
      ids.push(...page.items.map((item) => item.id))
      cursor = page.nextCursor
    }
    const all = await listTokens(walker, '?limit=100')
    expect(ids).toEqual(all.items.map((item) => item.id))
    expect(new Set(ids).size).toBe(ids.length)
  })

  test('a nextCursor replayed by another caller is 400 invalid_cursor', async () => {
    const cursor = encodeURIComponent(firstPage.nextCursor ?? '')
    // Another user, and another token of the same user.
    for (const token of [staffToken, await tp.token({ user: otherStaff })]) {
      const response = await tp.request('GET', `/api/v1/api-tokens?limit=1&cursor=${cursor}`, { token })
      await expectProblem(response, 400, 'invalid_cursor')
    }
  })

  test('a nextCursor used on another list is 400 invalid_cursor', async () => {
    const cursor = encodeURIComponent(firstPage.nextCursor ?? '')
    const response = await tp.request('GET', `/api/v1/users?limit=1&cursor=${cursor}`, { token: walker })
    await expectProblem(response, 400, 'invalid_cursor')
  })

  test('a nextCursor altered by one character is 400 invalid_cursor', async () => {
    const cursor = firstPage.nextCursor ?? ''
    for (const index of [1, cursor.length - 3]) {
      const altered = `${cursor.slice(0, index)}${cursor[index] === 'A' ? 'B' : 'A'}${cursor.slice(index + 1)}`
      const response = await tp.request('GET', `/api/v1/api-tokens?cursor=${encodeURIComponent(altered)}`, {
        token: walker,
      })
      await expectProblem(response, 400, 'invalid_cursor')
    }
  })

  test('limit=0 and limit=101 are 422 at query.limit', async () => {
    for (const limit of [0, 101]) {
      const response = await tp.request('GET', `/api/v1/api-tokens?limit=${limit}`, { token: walker })
      await expectFieldProblem(response, 422, 'validation_failed', 'query.limit', 'out_of_range')
    }
  })
})
