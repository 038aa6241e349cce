// What staff do to other people's accounts, through HTTP: disable and enable a user (sessions end, tokens refused at
// once, sign-in refused), and list and revoke anyone's API tokens, each within the users they may see.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from '../../pagination/paginate.ts'
import { tenancy } from '../../tenancy/tenancy.ts'
import { createKernelTestPanel, type TestPanel } from '../../testing/create-test-panel.ts'
import { expectProblem } from '../../testing/problems.ts'
import { login, sameOrigin, signIn } from '../../testing/sessions.ts'
import {
  brandA,
  brandB,
  customerA,
  customerB,
  fixturePlugin,
  twoTenants,
} from '../../testing/tenancy-fixture.ts'
import { createTestUser, testPassword } from '../../testing/users.ts'
import type { IdentityTables } from '../identity-tables.ts'
import type { User } from '../users.ts'

const tenancyPlugin = fixturePlugin({
  description: 'Brands, customers and a customer scope for the account-control tests.',
  scopes: ['gadget:read'],
  tenants: twoTenants,
})

interface UserBody extends User {}
interface TokenBody {
  readonly id: string
  readonly name: string
  readonly expiresAt: string
  readonly customerId: string | null
}
interface AuditBody {
  readonly action: string
  readonly actor: { userId: string | null; tokenId: string | null }
  readonly subject: { type: string; id: string }
  readonly customerId: string | null
  readonly brandId: string | null
  readonly details: Record<string, unknown>
}

let tp: TestPanel
let staff: User
let otherStaff: User
let brandStaffA: User
let brandStaffB: User
let staffToken: string
let brandToken: string
let userCount = 0

/** A fresh user (a plain member of `customers` with role developer, or staff): tests change accounts. */
async function newUser(
  options: { customers?: readonly string[]; staffRole?: 'platform' | 'brand'; brandId?: string } = {},
): Promise<User> {
  userCount++
  const user = await createTestUser(tp.panel.store.db, {
    email: `account-${userCount}@example.test`,
    staffRole: options.staffRole ?? null,
    brandId: options.brandId ?? null,
  })
  for (const customerId of options.customers ?? [])
    await tenancy.members.add(tp.panel.store.db, customerId, user.id, 'developer')
  return user
}

function post(token: string, path: string): Promise<Response> {
  return tp.request('POST', `/api/v1${path}`, { token })
}

async function userBody(response: Response): Promise<UserBody> {
  expect(response.status).toBe(200)
  return (await response.json()) as UserBody
}

function me(token: string): Promise<Response> {
  return tp.request('GET', '/api/v1/me', { token })
}

async function auditOf(action: string, subject: string): Promise<readonly AuditBody[]> {
  const response = await tp.request('GET', `/api/v1/audit?action=${action}&subject=${subject}`, {
    token: staffToken,
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as Page<AuditBody>).items
}

async function listTokens(token: string, userId: string): Promise<readonly TokenBody[]> {
  const response = await tp.request('GET', `/api/v1/users/${userId}/api-tokens?limit=100`, { token })
  expect(response.status).toBe(200)
  return ((await response.json()) as Page<TokenBody>).items
}

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [tenancyPlugin], loginThrottle: { stepDelayMs: 1 } })
  const db = tp.panel.store.db
  ;[staff, otherStaff, brandStaffA, brandStaffB] = await Promise.all([
    tp.staff(),
    createTestUser(db, { email: 'other-staff@example.test', staffRole: 'platform' }),
    createTestUser(db, { email: 'brand-a@example.test', staffRole: 'brand', brandId: brandA }),
    createTestUser(db, { email: 'brand-b@example.test', staffRole: 'brand', brandId: brandB }),
  ])
  staffToken = await tp.token()
  brandToken = await tp.token({ user: brandStaffA })
})
afterAll(() => tp.panel.close())

describe('disabling a user', () => {
  test('answers the user with disabledAt; their token is 401 account_disabled on the very next request', async () => {
    const member = await newUser({ customers: [customerA] })
    const token = await tp.token({ user: member })
    // Used first, so the panel keeps its caller: disabling must end that too.
    expect((await me(token)).status).toBe(200)
    expect((await me(token)).status).toBe(200)
    const before = Date.now()
    const disabled = await userBody(await post(staffToken, `/users/${member.id}/disable`))
    expect(disabled).toEqual({ ...member, disabledAt: expect.any(String) })
    expect(Date.parse(disabled.disabledAt ?? '')).toBeGreaterThanOrEqual(before - 1000)
    const refused = await me(token)
    await expectProblem(refused, 401, 'account_disabled')
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"')
    // Every route refuses it, not only /me.
    await expectProblem(await tp.request('GET', '/api/v1/api-tokens', { token }), 401, 'account_disabled')
    const read = await tp.request('GET', `/api/v1/users/${member.id}`, { token: staffToken })
    expect(await userBody(read)).toEqual(disabled)
  })

  test('ends every session of the user at once: deleted, so the cookie is 401 session_expired', async () => {
    const member = await newUser({ customers: [customerA] })
    const [first, second] = [await signIn(tp, member.email), await signIn(tp, member.email)]
    expect((await tp.request('GET', '/api/v1/me', { headers: { cookie: first.cookie } })).status).toBe(200)
    await userBody(await post(staffToken, `/users/${member.id}/disable`))
    for (const session of [first, second]) {
      const response = await tp.request('GET', '/api/v1/me', { headers: { cookie: session.cookie } })
      await expectProblem(response, 401, 'session_expired')
    }
    const left = await tp.panel.store.db
      .withTables<IdentityTables>()
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', member.id)
      .execute()
    expect(left).toEqual([])
  })

  test('sign-in is refused with 401 account_disabled once the password is right; a wrong one is invalid_credentials as for anyone', async () => {
    const member = await newUser({ customers: [customerA] })
    await userBody(await post(staffToken, `/users/${member.id}/disable`))
    const right = await login(tp, member.email, testPassword)
    await expectProblem(right, 401, 'account_disabled')
    expect(right.headers.get('set-cookie')).toBeNull()
    const wrong = await login(tp, member.email, 'not the password at all')
    const unknown = await login(tp, 'nobody-at-all@example.test', 'not the password at all')
    const { requestId: _a, ...wrongBody } = await expectProblem(wrong, 401, 'invalid_credentials')
    const { requestId: _b, ...unknownBody } = await expectProblem(unknown, 401, 'invalid_credentials')
    expect(wrongBody).toEqual(unknownBody)
  })

  test('refused sign-ins of a disabled account count as failures: the throttle still stops guessing', async () => {
    const member = await newUser({ customers: [customerA] })
    await userBody(await post(staffToken, `/users/${member.id}/disable`))
    for (let attempt = 0; attempt < 5; attempt++)
      await expectProblem(await login(tp, member.email, testPassword), 401, 'account_disabled')
    await expectProblem(await login(tp, member.email, testPassword), 429, 'too_many_attempts')
  })

  test('is audited as user.disable with the staff member and their token as the actor', async () => {
    const member = await newUser({ customers: [customerA] })
    await userBody(await post(staffToken, `/users/${member.id}/disable`))
    const [entry] = await auditOf('user.disable', member.id)
    expect(entry).toMatchObject({
      action: 'user.disable',
      actor: { userId: staff.id, tokenId: expect.stringMatching(/^tok_/) },
      subject: { type: 'user', id: member.id },
      customerId: null,
      brandId: brandA,
      details: { email: member.email },
    })
  })

  test('disabling a disabled user changes nothing: the same disabledAt, one audit entry', async () => {
    const member = await newUser({ customers: [customerA] })
    const first = await userBody(await post(staffToken, `/users/${member.id}/disable`))
    const again = await userBody(await post(staffToken, `/users/${member.id}/disable`))
    expect(again).toEqual(first)
    expect(await auditOf('user.disable', member.id)).toHaveLength(1)
  })

  test('staff cannot disable themselves: 409 cannot_disable_self', async () => {
    await expectProblem(await post(staffToken, `/users/${staff.id}/disable`), 409, 'cannot_disable_self')
    await expectProblem(
      await post(brandToken, `/users/${brandStaffA.id}/disable`),
      409,
      'cannot_disable_self',
    )
    expect((await me(staffToken)).status).toBe(200)
  })

  test('platform staff disable other platform staff and brand staff', async () => {
    const colleague = await newUser({ staffRole: 'platform' })
    const reseller = await newUser({ staffRole: 'brand', brandId: brandB })
    for (const user of [colleague, reseller]) {
      expect((await userBody(await post(staffToken, `/users/${user.id}/disable`))).disabledAt).not.toBeNull()
      await expectProblem(await me(await tp.token({ user })), 401, 'account_disabled')
    }
  })

  test('an unknown or malformed user id is 404', async () => {
    for (const id of ['usr_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'nobody'])
      await expectProblem(await post(staffToken, `/users/${id}/disable`), 404, 'not_found')
  })
})

describe('enabling a user', () => {
  test('lets their unexpired tokens work again, and sign-in; sessions ended by disabling stay ended', async () => {
    const member = await newUser({ customers: [customerA] })
    const token = await tp.token({ user: member })
    const session = await signIn(tp, member.email)
    await userBody(await post(staffToken, `/users/${member.id}/disable`))
    await expectProblem(await me(token), 401, 'account_disabled')
    const enabled = await userBody(await post(staffToken, `/users/${member.id}/enable`))
    expect(enabled).toEqual({ ...member, disabledAt: null })
    expect((await me(token)).status).toBe(200)
    const old = await tp.request('GET', '/api/v1/me', { headers: { cookie: session.cookie } })
    await expectProblem(old, 401, 'session_expired')
    expect((await login(tp, member.email, testPassword)).status).toBe(200)
    const [entry] = await auditOf('user.enable', member.id)
    expect(entry).toMatchObject({ actor: { userId: staff.id }, subject: { type: 'user', id: member.id } })
  })

  test('a revoked or expired token stays refused after enabling', async () => {
    const member = await newUser({ customers: [customerA] })
    const revoked = await tp.token({ user: member })
    const [listed] = await listTokens(staffToken, member.id)
    await userBody(await post(staffToken, `/users/${member.id}/disable`))
    const revoke = await tp.request('DELETE', `/api/v1/users/${member.id}/api-tokens/${listed?.id}`, {
      token: staffToken,
    })
    expect(revoke.status).toBe(204)
    await userBody(await post(staffToken, `/users/${member.id}/enable`))
    await expectProblem(await me(revoked), 401, 'invalid_token')
  })

  test('enabling an enabled user changes nothing and writes no entry', async () => {
    const member = await newUser({ customers: [customerA] })
    expect(await userBody(await post(staffToken, `/users/${member.id}/enable`))).toEqual(member)
    expect(await auditOf('user.enable', member.id)).toEqual([])
  })
})

describe('brand staff and disabling', () => {
  test('disable and enable their customers’ members and their own brand’s staff', async () => {
    const member = await newUser({ customers: [customerA] })
    const colleague = await newUser({ staffRole: 'brand', brandId: brandA })
    for (const user of [member, colleague]) {
      expect((await userBody(await post(brandToken, `/users/${user.id}/disable`))).disabledAt).not.toBeNull()
      expect((await userBody(await post(brandToken, `/users/${user.id}/enable`))).disabledAt).toBeNull()
    }
    const [entry] = await auditOf('user.disable', member.id)
    expect(entry).toMatchObject({ actor: { userId: brandStaffA.id }, brandId: brandA })
  })

  test('platform staff, another brand’s staff and its members are 404, and stay enabled', async () => {
    const memberB = await newUser({ customers: [customerB] })
    for (const user of [staff, otherStaff, brandStaffB, memberB]) {
      await expectProblem(await post(brandToken, `/users/${user.id}/disable`), 404, 'not_found')
      expect((await me(await tp.token({ user }))).status).toBe(200)
    }
  })

  test('a member also on another brand’s teams is 403 user_outside_brand (platform staff may)', async () => {
    const shared = await newUser({ customers: [customerA, customerB] })
    for (const path of ['disable', 'enable'])
      await expectProblem(await post(brandToken, `/users/${shared.id}/${path}`), 403, 'user_outside_brand')
    expect((await me(await tp.token({ user: shared }))).status).toBe(200)
    expect((await userBody(await post(staffToken, `/users/${shared.id}/disable`))).disabledAt).not.toBeNull()
    const [entry] = await auditOf('user.disable', shared.id)
    // A user of two brands belongs to neither: the entry is the platform's.
    expect(entry?.brandId).toBeNull()
  })
})

describe('who may disable', () => {
  test('a member, and a staff token limited to a customer, are 403 staff_only', async () => {
    const target = await newUser({ customers: [customerA] })
    const member = await newUser({ customers: [customerA] })
    for (const token of [await tp.token({ user: member }), await tp.token({ customerId: customerA })])
      await expectProblem(await post(token, `/users/${target.id}/disable`), 403, 'staff_only')
  })

  test('a staff token without user:manage is 403 insufficient_scope', async () => {
    const target = await newUser({ customers: [customerA] })
    const reader = await tp.token({ scopes: ['user:read'] })
    const body = await expectProblem(
      await post(reader, `/users/${target.id}/disable`),
      403,
      'insufficient_scope',
    )
    expect(body.scope).toBe('user:manage')
  })
})

describe('staff and a user’s API tokens', () => {
  test('staff list a user’s live tokens, expired ones included, never secrets or revoked ones', async () => {
    const member = await newUser({ customers: [customerA] })
    await tp.token({ user: member })
    await tp.token({ user: member, customerId: customerA })
    const expired = await tp.token({ user: member, expiresAt: new Date(Date.now() - 60_000).toISOString() })
    await expectProblem(await me(expired), 401, 'token_expired')
    await tp.token({ user: otherStaff })
    const items = await listTokens(staffToken, member.id)
    expect(items).toHaveLength(3)
    for (const item of items) {
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
    expect(JSON.stringify(items)).not.toContain(expired)
    expect(items.filter((item) => Date.parse(item.expiresAt) < Date.now())).toHaveLength(1)
    const [first] = items
    await tp.request('DELETE', `/api/v1/users/${member.id}/api-tokens/${first?.id}`, { token: staffToken })
    expect((await listTokens(staffToken, member.id)).map((item) => item.id)).not.toContain(first?.id)
  })

  test('revoking answers 204; the token is 401 invalid_token on the very next request; audited token.revoke', async () => {
    const member = await newUser({ customers: [customerA] })
    const token = await tp.token({ user: member, customerId: customerA })
    expect((await me(token)).status).toBe(200)
    const [listed] = await listTokens(staffToken, member.id)
    const path = `/api/v1/users/${member.id}/api-tokens/${listed?.id}`
    expect((await tp.request('DELETE', path, { token: staffToken })).status).toBe(204)
    await expectProblem(await me(token), 401, 'invalid_token')
    const [entry] = await auditOf('token.revoke', listed?.id ?? '')
    expect(entry).toMatchObject({
      actor: { userId: staff.id },
      subject: { type: 'token', id: listed?.id },
      customerId: customerA,
      brandId: brandA,
      details: { userId: member.id },
    })
    await expectProblem(await tp.request('DELETE', path, { token: staffToken }), 404, 'not_found')
  })

  test('a token under another user’s path, an unknown token and a malformed one are 404', async () => {
    const member = await newUser({ customers: [customerA] })
    const other = await newUser({ customers: [customerA] })
    const token = await tp.token({ user: member })
    const [listed] = await listTokens(staffToken, member.id)
    for (const path of [
      `/users/${other.id}/api-tokens/${listed?.id}`,
      `/users/${member.id}/api-tokens/tok_01JDQ3V6Y4T1ZK0M2N5P7R9S8W`,
      `/users/${member.id}/api-tokens/nope`,
    ]) {
      const response = await tp.request('DELETE', `/api/v1${path}`, { token: staffToken })
      await expectProblem(response, 404, 'not_found')
    }
    expect((await me(token)).status).toBe(200)
  })

  test('brand staff see every token of their own members, and of a shared member only those for their customers', async () => {
    const own = await newUser({ customers: [customerA] })
    await tp.token({ user: own })
    await tp.token({ user: own, customerId: customerA })
    expect(await listTokens(brandToken, own.id)).toHaveLength(2)
    const shared = await newUser({ customers: [customerA, customerB] })
    const unlimited = await tp.token({ user: shared })
    const forB = await tp.token({ user: shared, customerId: customerB })
    await tp.token({ user: shared, customerId: customerA })
    const seen = await listTokens(brandToken, shared.id)
    expect(seen.map((item) => item.customerId)).toEqual([customerA])
    // What they cannot see they cannot revoke.
    const all = await listTokens(staffToken, shared.id)
    for (const hidden of all.filter((item) => item.customerId !== customerA)) {
      const response = await tp.request('DELETE', `/api/v1/users/${shared.id}/api-tokens/${hidden.id}`, {
        token: brandToken,
      })
      await expectProblem(response, 404, 'not_found')
    }
    for (const token of [unlimited, forB]) expect((await me(token)).status).toBe(200)
    const revoke = await tp.request('DELETE', `/api/v1/users/${shared.id}/api-tokens/${seen[0]?.id}`, {
      token: brandToken,
    })
    expect(revoke.status).toBe(204)
  })

  test('brand staff listing tokens of platform staff or another brand’s users get 404', async () => {
    const memberB = await newUser({ customers: [customerB] })
    for (const user of [staff, brandStaffB, memberB]) {
      const response = await tp.request('GET', `/api/v1/users/${user.id}/api-tokens`, { token: brandToken })
      await expectProblem(response, 404, 'not_found')
    }
  })

  test('members and customer-limited tokens are 403 staff_only; a reader cannot revoke (insufficient_scope)', async () => {
    const member = await newUser({ customers: [customerA] })
    const memberToken = await tp.token({ user: member })
    const list = `/api/v1/users/${member.id}/api-tokens`
    await expectProblem(await tp.request('GET', list, { token: memberToken }), 403, 'staff_only')
    const limited = await tp.token({ customerId: customerA })
    await expectProblem(await tp.request('GET', list, { token: limited }), 403, 'staff_only')
    const [listed] = await listTokens(staffToken, member.id)
    const reader = await tp.token({ scopes: ['user:read'] })
    expect((await tp.request('GET', list, { token: reader })).status).toBe(200)
    const revoke = await tp.request('DELETE', `${list}/${listed?.id}`, { token: reader })
    await expectProblem(revoke, 403, 'insufficient_scope')
  })

  test('a session of platform staff revokes with its CSRF token', async () => {
    const member = await newUser({ customers: [customerA] })
    const token = await tp.token({ user: member })
    const [listed] = await listTokens(staffToken, member.id)
    const session = await signIn(tp, otherStaff.email)
    const response = await tp.request('DELETE', `/api/v1/users/${member.id}/api-tokens/${listed?.id}`, {
      headers: sameOrigin(session),
    })
    expect(response.status).toBe(204)
    await expectProblem(await me(token), 401, 'invalid_token')
    const [entry] = await auditOf('token.revoke', listed?.id ?? '')
    expect(entry?.actor).toEqual({ userId: otherStaff.id, tokenId: null })
  })
})
