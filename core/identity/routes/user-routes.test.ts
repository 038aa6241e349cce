// POST and GET /api/v1/users as staff see them: who may create whom, and who sees which users.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from '../../pagination/paginate.ts'
import { tenancy } from '../../tenancy/tenancy.ts'
import { createKernelTestPanel, type TestPanel } from '../../testing/create-test-panel.ts'
import { expectFieldProblem, expectProblem } from '../../testing/problems.ts'
import {
  brandA,
  brandB,
  customerA,
  customerB,
  fixturePlugin,
  twoTenants,
} from '../../testing/tenancy-fixture.ts'
import { createTestUser, testPassword } from '../../testing/users.ts'
import type { User } from '../users.ts'

/** Two brands with one customer each, standing in for the brands and customers plugins. */
const tenancyPlugin = fixturePlugin({
  description: 'Brands, customers and a customer scope for the user tests.',
  scopes: ['gadget:read'],
  tenants: twoTenants,
})

let tp: TestPanel
let staff: User
let brandStaffA: User
let brandStaffB: User
let memberA: User
let memberB: User
let staffToken: string
let brandToken: string

function postUser(token: string, body: Record<string, unknown>): Promise<Response> {
  return tp.request('POST', '/api/v1/users', { token, body: { password: testPassword, ...body } })
}

async function listUsers(token: string): Promise<string[]> {
  const response = await tp.request('GET', '/api/v1/users?limit=100', { token })
  expect(response.status).toBe(200)
  return ((await response.json()) as Page<User>).items.map((user) => user.email)
}

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [tenancyPlugin] })
  const db = tp.panel.store.db
  ;[staff, brandStaffA, brandStaffB, memberA, memberB] = await Promise.all([
    tp.staff(),
    createTestUser(db, { email: 'brand-a@example.test', staffRole: 'brand', brandId: brandA }),
    createTestUser(db, { email: 'brand-b@example.test', staffRole: 'brand', brandId: brandB }),
    createTestUser(db, { email: 'member-a@example.test', staffRole: null }),
    createTestUser(db, { email: 'member-b@example.test', staffRole: null }),
  ])
  await tenancy.members.add(db, customerA, memberA.id, 'owner')
  await tenancy.members.add(db, customerB, memberB.id, 'owner')
  staffToken = await tp.token()
  brandToken = await tp.token({ user: brandStaffA })
})
afterAll(() => tp.panel.close())

describe('creating users', () => {
  test('platform staff create a plain user: 201, Location, and never a password in the answer', async () => {
    const response = await postUser(staffToken, { email: 'Plain@Example.TEST' })
    expect(response.status).toBe(201)
    const user = (await response.json()) as User
    expect(user).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
      email: 'plain@example.test',
      staffRole: null,
      brandId: null,
      createdAt: expect.any(String),
      disabledAt: null,
    })
    expect(response.headers.get('location')).toBe(`/api/v1/users/${user.id}`)
    const read = await tp.request('GET', `/api/v1/users/${user.id}`, { token: staffToken })
    expect(await read.json()).toEqual(user)
  })

  test('platform staff create staff of any brand, and other platform staff', async () => {
    const [brand, platform] = await Promise.all([
      postUser(staffToken, { email: 'new-brand-b@example.test', staffRole: 'brand', brandId: brandB }),
      postUser(staffToken, { email: 'new-platform@example.test', staffRole: 'platform' }),
    ])
    expect(brand.status).toBe(201)
    expect(await brand.json()).toMatchObject({ staffRole: 'brand', brandId: brandB })
    expect(platform.status).toBe(201)
    expect(await platform.json()).toMatchObject({ staffRole: 'platform', brandId: null })
  })

  test('brand staff who name no brand create staff of their own brand', async () => {
    const response = await postUser(brandToken, { email: 'colleague@example.test', staffRole: 'brand' })
    expect(response.status).toBe(201)
    expect(await response.json()).toMatchObject({ staffRole: 'brand', brandId: brandA })
  })

  test('an e-mail already in use, in any case, is 409 email_taken', async () => {
    await expectProblem(await postUser(staffToken, { email: 'MEMBER-A@example.test' }), 409, 'email_taken')
    await expectProblem(await postUser(brandToken, { email: staff.email }), 409, 'email_taken')
  })

  test('brand staff creating platform staff is 422 staff_role_not_allowed at body.staffRole', async () => {
    const response = await postUser(brandToken, { email: 'climber@example.test', staffRole: 'platform' })
    await expectFieldProblem(response, 422, 'staff_role_not_allowed', 'body.staffRole')
  })

  test('brand staff creating staff of another brand is 422 unknown_brand at body.brandId', async () => {
    const response = await postUser(brandToken, {
      email: 'infiltrator@example.test',
      staffRole: 'brand',
      brandId: brandB,
    })
    await expectFieldProblem(response, 422, 'unknown_brand', 'body.brandId')
  })

  test('brand staff of a brand that does not exist, or of no brand, is 422 unknown_brand', async () => {
    const unknown = await postUser(staffToken, {
      email: 'ghost@example.test',
      staffRole: 'brand',
      brandId: 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9SZZ',
    })
    await expectFieldProblem(unknown, 422, 'unknown_brand', 'body.brandId')
    const none = await postUser(staffToken, { email: 'ghost@example.test', staffRole: 'brand' })
    await expectFieldProblem(none, 422, 'unknown_brand', 'body.brandId')
  })

  test('a brandId for anyone but brand staff is 422 unknown_field', async () => {
    for (const staffRole of [null, 'platform']) {
      const response = await postUser(staffToken, { email: 'odd@example.test', staffRole, brandId: brandA })
      await expectFieldProblem(response, 422, 'validation_failed', 'body.brandId', 'unknown_field')
    }
  })

  test('a password under 12 characters is 422 too_short at body.password', async () => {
    const response = await postUser(staffToken, { email: 'weak@example.test', password: 'short' })
    await expectFieldProblem(response, 422, 'validation_failed', 'body.password', 'too_short')
  })

  test('a staff token without user:manage is 403 insufficient_scope naming it', async () => {
    const reader = await tp.token({ scopes: ['user:read'] })
    const body = await expectProblem(
      await postUser(reader, { email: 'nope@example.test' }),
      403,
      'insufficient_scope',
    )
    expect(body.scope).toBe('user:manage')
  })
})

describe('the users area is for staff', () => {
  test('a member is refused with 403 staff_only', async () => {
    const token = await tp.token({ user: memberA })
    const refused = await expectProblem(
      await tp.request('GET', '/api/v1/users', { token }),
      403,
      'staff_only',
    )
    // Said as it is: a member, not a customer-limited token.
    expect(refused.detail).toContain('a member of a customer’s team cannot use it')
    await expectProblem(await tp.request('GET', `/api/v1/users/${memberA.id}`, { token }), 403, 'staff_only')
    await expectProblem(await postUser(token, { email: 'friend@example.test' }), 403, 'staff_only')
  })

  test('a staff token limited to one customer is refused with 403 staff_only', async () => {
    for (const user of [staff, brandStaffA]) {
      const token = await tp.token({ user, customerId: customerA })
      const refused = await expectProblem(
        await tp.request('GET', '/api/v1/users', { token }),
        403,
        'staff_only',
      )
      expect(refused.detail).toContain('a customer-limited token cannot use it')
      await expectProblem(await postUser(token, { email: 'friend@example.test' }), 403, 'staff_only')
    }
  })
})

describe('listing and reading users', () => {
  test('platform staff see every user', async () => {
    const emails = await listUsers(staffToken)
    for (const user of [staff, brandStaffA, brandStaffB, memberA, memberB])
      expect(emails).toContain(user.email)
  })

  test('brand staff see their brand’s staff and their customers’ members, and no one else', async () => {
    const emails = await listUsers(brandToken)
    expect(emails).toContain(brandStaffA.email)
    expect(emails).toContain(memberA.email)
    for (const user of [staff, brandStaffB, memberB]) expect(emails).not.toContain(user.email)
  })

  test('brand staff reading a user outside their brand get 404', async () => {
    for (const user of [staff, brandStaffB, memberB]) {
      const response = await tp.request('GET', `/api/v1/users/${user.id}`, { token: brandToken })
      await expectProblem(response, 404, 'not_found')
    }
    expect((await tp.request('GET', `/api/v1/users/${memberA.id}`, { token: brandToken })).status).toBe(200)
  })

  test('an unknown or malformed user id is 404', async () => {
    for (const id of ['usr_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'nobody']) {
      const response = await tp.request('GET', `/api/v1/users/${id}`, { token: staffToken })
      await expectProblem(response, 404, 'not_found')
    }
  })
})
