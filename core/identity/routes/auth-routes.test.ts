// Sign-in and sign-out, the session cookie and its CSRF guard, login throttling, password change and GET /me.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defineRoute } from '../../plugin/route.ts'
import { tenancy } from '../../tenancy/tenancy.ts'
import { createKernelTestPanel, type TestPanel } from '../../testing/create-test-panel.ts'
import { expectFieldProblem, expectProblem } from '../../testing/problems.ts'
import { cookieOf, type LoginBody, login, type Session, sameOrigin, signIn } from '../../testing/sessions.ts'
import { customerA, customerB, fixturePlugin } from '../../testing/tenancy-fixture.ts'
import { createTestUser, testPassword } from '../../testing/users.ts'
import type { User } from '../users.ts'

/** Scopes shaped like the standard plugins' ones, and a state-changing route to try cookies on. */
const fixturesPlugin = fixturePlugin({
  name: 'fixtures',
  description: 'Scopes and a test route for the identity tests.',
  scopes: [
    'gadget:read',
    'gadget:create',
    'customer:read',
    'customer:manage',
    'billing:manage',
    'widget:admin',
    'widget:create',
  ],
  routes: () => [
    defineRoute({
      method: 'POST',
      audited: false,
      path: '/pings',
      operationId: 'ping',
      summary: 'A change any caller may make',
      authenticated: true,
      responses: { 200: { description: 'Who pinged.' } },
      handler: ({ caller }) => ({ userId: caller.user.id }),
    }),
  ],
})

interface MeBody {
  readonly user: User
  readonly kind: string
  readonly brandId: string | null
  readonly memberships: readonly {
    customerId: string
    role: string
    customerName: string | null
    brandId: string | null
  }[]
  readonly session: { csrfToken: string } | null
  readonly token: {
    id: string
    scopes: string[]
    customerId: string | null
    expiresAt: string
  } | null
  readonly scopes: readonly string[]
}

const dayMs = 86_400_000
const brandId = 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9SBR'

async function me(tp: TestPanel, options: { token?: string; headers?: Record<string, string> }) {
  const response = await tp.request('GET', '/api/v1/me', options)
  expect(response.status).toBe(200)
  return (await response.json()) as MeBody
}

let tp: TestPanel
let staff: User
let brandStaff: User
let member: User
let changer: User
let staffSession: Session
let loginResponse: Response
let loginBody: LoginBody

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [fixturesPlugin], loginThrottle: { stepDelayMs: 1 } })
  const db = tp.panel.store.db
  ;[staff, brandStaff, member, changer] = await Promise.all([
    tp.staff(),
    createTestUser(db, { email: 'brand@example.test', staffRole: 'brand', brandId }),
    createTestUser(db, { email: 'member@example.test', staffRole: null }),
    createTestUser(db, { email: 'changer@example.test', staffRole: null }),
  ])
  await tenancy.members.add(db, customerA, member.id, 'billing')
  await tenancy.members.add(db, customerB, member.id, 'developer')
  loginResponse = await login(tp, staff.email, testPassword)
  loginBody = (await loginResponse.json()) as LoginBody
  staffSession = { cookie: cookieOf(loginResponse), csrfToken: loginBody.csrfToken }
})
afterAll(() => tp.panel.close())

describe('login', () => {
  test('a correct e-mail and password answer the CSRF token, the expiry and the user', () => {
    expect(loginResponse.status).toBe(200)
    expect(loginResponse.headers.get('cache-control')).toBe('no-store')
    expect(loginBody).toEqual({ csrfToken: expect.any(String), expiresAt: expect.any(String), user: staff })
    expect(loginBody.csrfToken.length).toBeGreaterThan(20)
    expect(Date.parse(loginBody.expiresAt) - Date.now()).toBeWithin(30 * dayMs - 60_000, 30 * dayMs + 1)
  })

  test('the session cookie is HttpOnly, SameSite=Lax, on Path=/ and not Secure over plain HTTP', () => {
    const attributes = (loginResponse.headers.get('set-cookie') ?? '').split('; ')
    expect(attributes[0]).toMatch(/^plinth_session=[a-z2-7]{24}\.[a-z2-7]{24}$/)
    expect(attributes).toContain('HttpOnly')
    expect(attributes).toContain('SameSite=Lax')
    expect(attributes).toContain('Path=/')
    expect(attributes).toContainEqual(expect.stringMatching(/^Max-Age=259\d{4}$/))
    expect(attributes).not.toContain('Secure')
  })

  test('the session cookie is Secure when the request came over HTTPS', async () => {
    const response = await tp.panel.handle(
      new Request('https://localhost/api/v1/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: staff.email, password: testPassword }),
      }),
    )
    expect(response.status).toBe(200)
    expect((response.headers.get('set-cookie') ?? '').split('; ')).toContain('Secure')
  })

  test('the e-mail is matched whatever its case and surrounding spaces', async () => {
    const response = await login(tp, '  STAFF@Example.TEST ', testPassword)
    expect(response.status).toBe(200)
    expect(((await response.json()) as LoginBody).user.id).toBe(staff.id)
  })

  test('a wrong password and an unknown e-mail both answer 401 invalid_credentials with the same body', async () => {
    const wrong = await login(tp, staff.email, 'not the password at all')
    const unknown = await login(tp, 'nobody@example.test', testPassword)
    const { requestId: _a, ...wrongBody } = await expectProblem(wrong, 401, 'invalid_credentials')
    const { requestId: _b, ...unknownBody } = await expectProblem(unknown, 401, 'invalid_credentials')
    expect(wrongBody).toEqual(unknownBody)
    expect(wrong.headers.get('www-authenticate')).toStartWith('Bearer')
    expect(wrong.headers.get('set-cookie')).toBeNull()
    expect(unknown.headers.get('set-cookie')).toBeNull()
  })
})

describe('the session cookie', () => {
  test('a GET with the cookie needs no CSRF token', async () => {
    const body = await me(tp, { headers: { cookie: staffSession.cookie } })
    expect(body.user.id).toBe(staff.id)
    expect(body.token).toBeNull()
  })

  test('a change with the cookie, its CSRF token and Sec-Fetch-Site: same-origin is accepted', async () => {
    const response = await tp.request('POST', '/api/v1/pings', { headers: sameOrigin(staffSession) })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ userId: staff.id })
  })

  test('a change with a matching Origin instead of Sec-Fetch-Site is accepted', async () => {
    const headers = {
      cookie: staffSession.cookie,
      'x-csrf-token': staffSession.csrfToken,
      origin: 'http://localhost',
    }
    expect((await tp.request('POST', '/api/v1/pings', { headers })).status).toBe(200)
  })

  test('a change without X-CSRF-Token is 403 csrf_token_invalid', async () => {
    const headers = { cookie: staffSession.cookie, 'sec-fetch-site': 'same-origin' }
    await expectProblem(await tp.request('POST', '/api/v1/pings', { headers }), 403, 'csrf_token_invalid')
  })

  test('a change with a CSRF token that is not the session’s is 403 csrf_token_invalid', async () => {
    const headers = sameOrigin(staffSession, { 'x-csrf-token': `${staffSession.csrfToken.slice(0, -2)}xx` })
    await expectProblem(await tp.request('POST', '/api/v1/pings', { headers }), 403, 'csrf_token_invalid')
  })

  test('a change with the CSRF token but Sec-Fetch-Site: cross-site or same-site is 403 cross_origin_request', async () => {
    for (const fetchSite of ['cross-site', 'same-site', 'none']) {
      const headers = sameOrigin(staffSession, { 'sec-fetch-site': fetchSite })
      await expectProblem(await tp.request('POST', '/api/v1/pings', { headers }), 403, 'cross_origin_request')
    }
  })

  test('a change with neither Sec-Fetch-Site nor Origin is 403 cross_origin_request', async () => {
    const headers = { cookie: staffSession.cookie, 'x-csrf-token': staffSession.csrfToken }
    await expectProblem(await tp.request('POST', '/api/v1/pings', { headers }), 403, 'cross_origin_request')
  })

  test('a change with a foreign Origin is 403 cross_origin_request', async () => {
    const headers = {
      cookie: staffSession.cookie,
      'x-csrf-token': staffSession.csrfToken,
      origin: 'https://evil.example',
    }
    await expectProblem(await tp.request('POST', '/api/v1/pings', { headers }), 403, 'cross_origin_request')
  })

  test('a bearer request ignores cookies and needs no CSRF token', async () => {
    const token = await tp.token({ user: member })
    for (const cookie of [staffSession.cookie, 'plinth_session=garbage']) {
      const response = await tp.request('POST', '/api/v1/pings', { token, headers: { cookie } })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ userId: member.id })
    }
  })

  test('a cookie whose secret was changed is 401 session_expired', async () => {
    const [id, secret = ''] = staffSession.cookie.split('.')
    const tampered = `${id}.${secret.startsWith('a') ? 'b' : 'a'}${secret.slice(1)}`
    const response = await tp.request('GET', '/api/v1/me', { headers: { cookie: tampered } })
    await expectProblem(response, 401, 'session_expired')
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer')
  })

  test('an unknown or malformed cookie is 401 session_expired', async () => {
    for (const cookie of ['plinth_session=abc.def', 'plinth_session=no-dot', 'plinth_session=a.b.c']) {
      await expectProblem(
        await tp.request('GET', '/api/v1/me', { headers: { cookie } }),
        401,
        'session_expired',
      )
    }
  })
})

describe('logout', () => {
  test('logout needs the CSRF token like any change, then ends the session and clears the cookie', async () => {
    const session = await signIn(tp, staff.email)
    const withoutCsrf = { cookie: session.cookie, 'sec-fetch-site': 'same-origin' }
    const refused = await tp.request('POST', '/api/v1/auth/logout', { headers: withoutCsrf })
    await expectProblem(refused, 403, 'csrf_token_invalid')

    const response = await tp.request('POST', '/api/v1/auth/logout', { headers: sameOrigin(session) })
    expect(response.status).toBe(204)
    const cleared = (response.headers.get('set-cookie') ?? '').split('; ')
    expect(cleared[0]).toBe('plinth_session=')
    expect(cleared).toContain('Max-Age=0')
    expect(cleared).toContain('HttpOnly')
    const after = await tp.request('GET', '/api/v1/me', { headers: { cookie: session.cookie } })
    await expectProblem(after, 401, 'session_expired')
    // The other session of the same user is untouched.
    expect((await tp.request('GET', '/api/v1/me', { headers: { cookie: staffSession.cookie } })).status).toBe(
      200,
    )
  })
})

describe('logout with a bearer token', () => {
  test('changes nothing: 204 without touching any cookie', async () => {
    const token = await tp.token({ user: staff })
    const response = await tp.request('POST', '/api/v1/auth/logout', { token })
    expect(response.status).toBe(204)
    expect(response.headers.get('set-cookie')).toBeNull()
  })
})

describe('changing the password', () => {
  test('a wrong current password is 422 with wrong_password at body.currentPassword', async () => {
    const token = await tp.token({ user: changer })
    const response = await tp.request('POST', '/api/v1/me/password', {
      token,
      body: { currentPassword: 'not my password', newPassword: 'a brand new passphrase' },
    })
    await expectFieldProblem(response, 422, 'validation_failed', 'body.currentPassword', 'wrong_password')
  })

  test('a new password under 12 characters is 422 too_short at body.newPassword', async () => {
    const token = await tp.token({ user: changer })
    const response = await tp.request('POST', '/api/v1/me/password', {
      token,
      body: { currentPassword: testPassword, newPassword: 'short' },
    })
    await expectFieldProblem(response, 422, 'validation_failed', 'body.newPassword', 'too_short')
  })

  test('a token without * cannot change the password: 403 wildcard_token_required', async () => {
    const token = await tp.token({ user: changer, scopes: ['gadget:read'] })
    const response = await tp.request('POST', '/api/v1/me/password', {
      token,
      body: { currentPassword: testPassword, newPassword: 'a brand new passphrase' },
    })
    await expectProblem(response, 403, 'wildcard_token_required')
  })

  test('success ends every session of the user and answers a new session cookie and CSRF token', async () => {
    const user = await createTestUser(tp.panel.store.db, { email: 'rotate@example.test', staffRole: null })
    const [current, other] = await Promise.all([signIn(tp, user.email), signIn(tp, user.email)])
    const token = await tp.token({ user })
    const newPassword = 'a brand new passphrase'

    const response = await tp.request('POST', '/api/v1/me/password', {
      headers: sameOrigin(current),
      body: { currentPassword: testPassword, newPassword },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as LoginBody
    expect(body).toEqual({ csrfToken: expect.any(String), expiresAt: expect.any(String), user })
    const renewed = { cookie: cookieOf(response), csrfToken: body.csrfToken }
    expect(renewed.cookie).not.toBe(current.cookie)

    for (const old of [current, other]) {
      const stale = await tp.request('GET', '/api/v1/me', { headers: { cookie: old.cookie } })
      await expectProblem(stale, 401, 'session_expired')
    }
    expect((await tp.request('POST', '/api/v1/pings', { headers: sameOrigin(renewed) })).status).toBe(200)
    // API tokens stay valid, and the new password is the one that signs in.
    expect((await me(tp, { token })).user.id).toBe(user.id)
    expect((await login(tp, user.email, newPassword)).status).toBe(200)
  })

  test('with a * token it answers null and sets no cookie', async () => {
    const token = await tp.token({ user: changer })
    const response = await tp.request('POST', '/api/v1/me/password', {
      token,
      body: { currentPassword: testPassword, newPassword: 'changed by a token' },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    expect(response.headers.get('set-cookie')).toBeNull()
  })
})

describe('login throttling', () => {
  test('failures for one account are slowed, and the sixth attempt is 429 too_many_attempts with Retry-After, even with the right password', async () => {
    const stepDelayMs = 20
    const throttled = await createKernelTestPanel({ plugins: [], loginThrottle: { stepDelayMs } })
    try {
      const user = await throttled.staff()
      for (let attempt = 1; attempt <= 5; attempt++) {
        const started = performance.now()
        const response = await login(throttled, user.email, 'a wrong password')
        // Each failure after the first adds a step before the next answer.
        expect(performance.now() - started).toBeGreaterThanOrEqual(Math.max(0, attempt - 2) * stepDelayMs - 1)
        await expectProblem(response, 401, 'invalid_credentials')
      }
      const refused = await login(throttled, user.email, testPassword)
      const body = await expectProblem(refused, 429, 'too_many_attempts')
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeWithin(15 * 60 - 5, 15 * 60 + 1)
      expect(body.retryAfter).toBe(retryAfter)
      expect(refused.headers.get('set-cookie')).toBeNull()
    } finally {
      await throttled.panel.close()
    }
  })

  test('wrong passwords sent all at once are still refused after five: attempts count before the check', async () => {
    // Found by review: attempts were counted only after argon2 answered, so parallel guesses all got through.
    const throttled = await createKernelTestPanel({ plugins: [], loginThrottle: { stepDelayMs: 1 } })
    try {
      const user = await throttled.staff()
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => login(throttled, user.email, 'a wrong password')),
      )
      const statuses = answers.map((response) => response.status)
      expect(statuses.filter((status) => status === 401)).toHaveLength(5)
      expect(statuses.filter((status) => status === 429)).toHaveLength(15)
    } finally {
      await throttled.panel.close()
    }
  })

  test('guessing the current password through a token is throttled like a login', async () => {
    const throttled = await createKernelTestPanel({ plugins: [], loginThrottle: { stepDelayMs: 1 } })
    try {
      const token = await throttled.token()
      const change = () =>
        throttled.request('POST', '/api/v1/me/password', {
          token,
          body: { currentPassword: 'a wrong guess', newPassword: 'a brand new passphrase' },
        })
      for (let attempt = 1; attempt <= 5; attempt++)
        await expectProblem(await change(), 422, 'validation_failed')
      await expectProblem(await change(), 429, 'too_many_attempts')
    } finally {
      await throttled.panel.close()
    }
  })

  test('failures from one address are refused for every account from it, not from other addresses', async () => {
    const throttled = await createKernelTestPanel({
      plugins: [],
      loginThrottle: { stepDelayMs: 1, perAddress: 2 },
    })
    const attempt = (email: string, address: string) =>
      throttled.panel.handle(
        new Request('http://localhost/api/v1/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: testPassword }),
        }),
        { address },
      )
    try {
      await expectProblem(await attempt('one@example.test', '192.0.2.1'), 401, 'invalid_credentials')
      await expectProblem(await attempt('two@example.test', '192.0.2.1'), 401, 'invalid_credentials')
      await expectProblem(await attempt('three@example.test', '192.0.2.1'), 429, 'too_many_attempts')
      await expectProblem(await attempt('three@example.test', '192.0.2.2'), 401, 'invalid_credentials')
    } finally {
      await throttled.panel.close()
    }
  })

  test('failures from one address (code on the panel’s own machine, at 127.0.0.1) never lock the account for its owner elsewhere', async () => {
    // The account once had one count for every address: five wrong passwords from a site locked staff out.
    const throttled = await createKernelTestPanel({
      plugins: [],
      loginThrottle: { stepDelayMs: 1, perAccountAnywhere: 16 },
    })
    const attempt = (password: string, address: string) =>
      throttled.panel.handle(
        new Request('http://localhost/api/v1/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'staff@example.test', password }),
        }),
        { address },
      )
    try {
      await throttled.staff()
      for (let i = 0; i < 5; i++)
        await expectProblem(await attempt('a wrong password', '127.0.0.1'), 401, 'invalid_credentials')
      // Guessing from that address stops there, even with the right password: loopback earns no allowance.
      await expectProblem(await attempt(testPassword, '127.0.0.1'), 429, 'too_many_attempts')
      // The owner, from elsewhere, signs in as ever.
      expect((await attempt(testPassword, '198.51.100.7')).status).toBe(200)
      // Guesses spread over many addresses are still bounded for the account as a whole (16 here, the five above
      // included; 100 by default).
      for (const address of ['203.0.113.1', '203.0.113.2'])
        for (let i = 0; i < 5; i++)
          await expectProblem(await attempt('a wrong password', address), 401, 'invalid_credentials')
      await expectProblem(await attempt('a wrong password', '203.0.113.3'), 401, 'invalid_credentials')
      await expectProblem(await attempt('a wrong password', '203.0.113.4'), 429, 'too_many_attempts')
    } finally {
      await throttled.panel.close()
    }
  }, 30_000)
})

describe('GET /me', () => {
  const allScopes = [
    'audit:read',
    'billing:manage',
    'customer:manage',
    'customer:read',
    'gadget:create',
    'gadget:read',
    'job:cancel',
    'job:read',
    'user:manage',
    'user:read',
    'widget:admin',
    'widget:create',
  ]

  test('it carries the session’s CSRF token, so no cache may keep it', async () => {
    const response = await tp.request('GET', '/api/v1/me', { headers: { cookie: staffSession.cookie } })
    expect(response.headers.get('cache-control')).toBe('no-store')
  })

  test('platform staff signed in with a session: every scope, no brand, no memberships, no token', async () => {
    expect(await me(tp, { headers: { cookie: staffSession.cookie } })).toEqual({
      user: staff,
      kind: 'platform',
      brandId: null,
      memberships: [],
      token: null,
      scopes: allScopes,
      session: { csrfToken: staffSession.csrfToken },
    })
  })

  test('brand staff: their brand, and every scope but the platform-only ones', async () => {
    const token = await tp.token({ user: brandStaff })
    const body = await me(tp, { token })
    expect(body).toEqual({
      user: brandStaff,
      kind: 'brand',
      brandId,
      memberships: [],
      token: {
        id: expect.stringMatching(/^tok_/),
        scopes: ['*'],
        customerId: null,
        expiresAt: expect.any(String),
      },
      scopes: allScopes.filter((scope) => scope !== 'widget:create'),
      session: null,
    })
  })

  test('a member with two memberships: both roles, and the scopes of both together', async () => {
    const token = await tp.token({ user: member })
    expect(await me(tp, { token })).toMatchObject({
      user: member,
      kind: 'member',
      brandId: null,
      // This panel has no customer directory: no name to show (names are shown in plugins/customers' tests).
      memberships: [
        { customerId: customerA, role: 'billing', customerName: null },
        { customerId: customerB, role: 'developer', customerName: null },
      ],
      scopes: ['billing:manage', 'customer:read', 'gadget:create', 'gadget:read', 'job:cancel', 'job:read'],
    })
  })

  test('a narrowed token keeps only the scopes its user holds now', async () => {
    const expiresAt = new Date(Date.now() + 7 * dayMs).toISOString()
    const token = await tp.token({ user: member, scopes: ['gadget:read', 'customer:manage'], expiresAt })
    const body = await me(tp, { token })
    expect(body.token).toEqual({
      id: expect.stringMatching(/^tok_[0-9A-Z]{26}$/),
      scopes: ['gadget:read', 'customer:manage'],
      customerId: null,
      expiresAt,
    })
    expect(body.scopes).toEqual(['gadget:read'])
  })

  test('a token limited to one customer holds only what the member’s role there grants', async () => {
    const token = await tp.token({ user: member, customerId: customerB })
    const body = await me(tp, { token })
    expect(body.token?.customerId).toBe(customerB)
    expect(body.scopes).toEqual(['gadget:create', 'gadget:read', 'job:cancel', 'job:read'])
    // Only the membership the token can use is shown.
    expect(body.memberships.map(({ customerId, role }) => ({ customerId, role }))).toEqual([
      { customerId: customerB, role: 'developer' },
    ])
  })

  test('without credentials it is 401 unauthenticated with a Bearer challenge', async () => {
    const response = await tp.request('GET', '/api/v1/me')
    await expectProblem(response, 401, 'unauthenticated')
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer')
  })
})
