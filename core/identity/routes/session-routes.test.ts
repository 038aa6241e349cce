// GET and DELETE /api/v1/sessions: a user sees where they are signed in, and ends a session, never another user's.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from '../../pagination/paginate.ts'
import { createKernelTestPanel, type TestPanel } from '../../testing/create-test-panel.ts'
import { expectProblem } from '../../testing/problems.ts'
import { cookieOf, type LoginBody, type Session, sameOrigin } from '../../testing/sessions.ts'
import { fixturePlugin, twoTenants } from '../../testing/tenancy-fixture.ts'
import { createTestUser, testPassword } from '../../testing/users.ts'
import type { IdentityTables } from '../identity-tables.ts'
import type { User } from '../users.ts'

const tenancyPlugin = fixturePlugin({
  description: 'Customers and a scope for the session tests.',
  scopes: ['gadget:read'],
  tenants: twoTenants,
})

interface SessionBody {
  readonly id: string
  readonly createdAt: string
  readonly expiresAt: string
  readonly address: string | null
  readonly userAgent: string | null
  readonly current: boolean
}

let tp: TestPanel
let userCount = 0

async function newUser(): Promise<User> {
  userCount++
  return createTestUser(tp.panel.store.db, { email: `sessions-${userCount}@example.test`, staffRole: null })
}

/** Signs in as a browser at `address` with `userAgent` would. */
async function signInFrom(user: User, address: string | null, userAgent?: string): Promise<Session> {
  const response = await tp.panel.handle(
    new Request('http://localhost/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(userAgent ? { 'user-agent': userAgent } : {}) },
      body: JSON.stringify({ email: user.email, password: testPassword }),
    }),
    { address },
  )
  expect(response.status).toBe(200)
  return { cookie: cookieOf(response), csrfToken: ((await response.json()) as LoginBody).csrfToken }
}

const idOf = (session: Session) => session.cookie.slice('plinth_session='.length).split('.')[0] ?? ''

async function list(headers: Record<string, string>, token?: string): Promise<readonly SessionBody[]> {
  const response = await tp.request('GET', '/api/v1/sessions', { headers, token })
  expect(response.status).toBe(200)
  return ((await response.json()) as Page<SessionBody>).items
}

function remove(session: Session, id: string): Promise<Response> {
  return tp.request('DELETE', `/api/v1/sessions/${id}`, { headers: sameOrigin(session) })
}

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [tenancyPlugin] })
})
afterAll(() => tp.panel.close())

describe('listing one’s sessions', () => {
  test('each live session with when and where it was made, the one in use marked current', async () => {
    const user = await newUser()
    const laptop = await signInFrom(user, '203.0.113.7', 'Firefox/130.0')
    const phone = await signInFrom(user, '2001:db8::1', 'Mobile Safari')
    await signInFrom(await newUser(), '198.51.100.1', 'Not yours')
    const items = await list({ cookie: laptop.cookie })
    expect(items).toHaveLength(2)
    const byId = new Map(items.map((item) => [item.id, item]))
    expect(byId.get(idOf(laptop))).toEqual({
      id: idOf(laptop),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      address: '203.0.113.7',
      userAgent: 'Firefox/130.0',
      current: true,
    })
    expect(byId.get(idOf(phone))).toMatchObject({
      address: '2001:db8::1',
      userAgent: 'Mobile Safari',
      current: false,
    })
    const fromPhone = await list({ cookie: phone.cookie })
    expect(fromPhone.filter((item) => item.current).map((item) => item.id)).toEqual([idOf(phone)])
  })

  test('the user agent is kept to 256 characters; without an address or user agent both are null', async () => {
    const user = await newUser()
    const long = await signInFrom(user, null, `Agent ${'x'.repeat(400)}`)
    const [item] = await list({ cookie: long.cookie })
    expect(item?.userAgent).toHaveLength(256)
    expect(item?.address).toBeNull()
    const other = await newUser()
    const bare = await signInFrom(other, null)
    expect((await list({ cookie: bare.cookie }))[0]).toMatchObject({ address: null, userAgent: null })
  })

  test('expired sessions are not listed', async () => {
    const user = await newUser()
    const live = await signInFrom(user, null, 'live')
    const old = await signInFrom(user, null, 'old')
    await tp.panel.store.db
      .withTables<IdentityTables>()
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', idOf(old))
      .execute()
    expect((await list({ cookie: live.cookie })).map((item) => item.id)).toEqual([idOf(live)])
  })

  test('a * token lists its user’s sessions, none current; a narrower token is 403 wildcard_token_required', async () => {
    const user = await newUser()
    const session = await signInFrom(user, null, 'browser')
    const items = await list({}, await tp.token({ user }))
    expect(items.map((item) => [item.id, item.current])).toEqual([[idOf(session), false]])
    const narrow = await tp.token({ user, scopes: ['gadget:read'] })
    await expectProblem(
      await tp.request('GET', '/api/v1/sessions', { token: narrow }),
      403,
      'wildcard_token_required',
    )
  })

  test('without credentials it is 401 unauthenticated', async () => {
    await expectProblem(await tp.request('GET', '/api/v1/sessions'), 401, 'unauthenticated')
  })
})

describe('ending a session', () => {
  test('ends another session of the user at once (401 session_expired there), audited session.delete', async () => {
    const user = await newUser()
    const laptop = await signInFrom(user, null, 'laptop')
    const lost = await signInFrom(user, null, 'lost phone')
    const response = await remove(laptop, idOf(lost))
    expect(response.status).toBe(204)
    expect(response.headers.get('set-cookie')).toBeNull()
    await expectProblem(
      await tp.request('GET', '/api/v1/me', { headers: { cookie: lost.cookie } }),
      401,
      'session_expired',
    )
    expect((await list({ cookie: laptop.cookie })).map((item) => item.id)).toEqual([idOf(laptop)])
    const audit = await tp.request('GET', `/api/v1/audit?action=session.delete&subject=${user.id}`, {
      token: await tp.token(),
    })
    const [entry] = ((await audit.json()) as Page<{ actor: unknown; details: unknown }>).items
    expect(entry).toMatchObject({
      actor: { userId: user.id, tokenId: null },
      details: { sessionId: idOf(lost) },
    })
    await expectProblem(await remove(laptop, idOf(lost)), 404, 'not_found')
  })

  test('another user’s session is 404 and goes on working', async () => {
    const mine = await signInFrom(await newUser(), null, 'mine')
    const theirs = await signInFrom(await newUser(), null, 'theirs')
    await expectProblem(await remove(mine, idOf(theirs)), 404, 'not_found')
    expect((await tp.request('GET', '/api/v1/me', { headers: { cookie: theirs.cookie } })).status).toBe(200)
  })

  test('an id that is not a session id is 404 before any lookup', async () => {
    const mine = await signInFrom(await newUser(), null, 'mine')
    for (const id of ['tok_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', idOf(mine).toUpperCase(), `${idOf(mine)}a`, 'abc'])
      await expectProblem(await remove(mine, id), 404, 'not_found')
  })

  test('ending the session in use also clears its cookie', async () => {
    const mine = await signInFrom(await newUser(), null, 'mine')
    const response = await remove(mine, idOf(mine))
    expect(response.status).toBe(204)
    const cleared = (response.headers.get('set-cookie') ?? '').split('; ')
    expect(cleared[0]).toBe('plinth_session=')
    expect(cleared).toContain('Max-Age=0')
    await expectProblem(
      await tp.request('GET', '/api/v1/me', { headers: { cookie: mine.cookie } }),
      401,
      'session_expired',
    )
  })

  test('with the cookie, it needs the CSRF token like any change', async () => {
    const mine = await signInFrom(await newUser(), null, 'mine')
    const response = await tp.request('DELETE', `/api/v1/sessions/${idOf(mine)}`, {
      headers: { cookie: mine.cookie, 'sec-fetch-site': 'same-origin' },
    })
    await expectProblem(response, 403, 'csrf_token_invalid')
  })

  test('a * token ends a session of its user; a narrower one is 403 wildcard_token_required', async () => {
    const user = await newUser()
    const session = await signInFrom(user, null, 'browser')
    const narrow = await tp.token({ user, scopes: ['gadget:read'] })
    const path = `/api/v1/sessions/${idOf(session)}`
    await expectProblem(await tp.request('DELETE', path, { token: narrow }), 403, 'wildcard_token_required')
    expect((await tp.request('DELETE', path, { token: await tp.token({ user }) })).status).toBe(204)
  })
})
