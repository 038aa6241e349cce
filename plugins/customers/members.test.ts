// A customer's team through /api/v1/customers/{id}/members: adding, roles, the last owner, and what tokens keep.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TeamRole, User } from '../../core/index.ts'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { Member } from './contract.ts'
import { customersPlugin } from './index.ts'

let tp: TestPanel
let staffToken: string
let owner: User
let admin: User
let developer: User
let outsider: User
let leaver: User
let ownerToken: string
let adminToken: string
let developerToken: string
let otherBrandToken: string

async function createCustomer(name = 'Team Co'): Promise<string> {
  const response = await tp.request('POST', '/api/v1/customers', { token: staffToken, body: { name } })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

function addMember(token: string, customerId: string, email: string, role: TeamRole): Promise<Response> {
  return tp.request('POST', `/api/v1/customers/${customerId}/members`, { token, body: { email, role } })
}

function setRole(token: string, customerId: string, user: User, role: TeamRole): Promise<Response> {
  return tp.request('PATCH', `/api/v1/customers/${customerId}/members/${user.id}`, { token, body: { role } })
}

function removeMember(token: string, customerId: string, user: User): Promise<Response> {
  return tp.request('DELETE', `/api/v1/customers/${customerId}/members/${user.id}`, { token })
}

/** A fresh customer whose team staff fill with these users and roles. */
async function team(...members: readonly (readonly [User, TeamRole])[]): Promise<string> {
  const customerId = await createCustomer()
  for (const [user, role] of members) {
    expect((await addMember(staffToken, customerId, user.email, role)).status).toBe(201)
  }
  return customerId
}

async function roles(customerId: string): Promise<Record<string, string>> {
  const response = await tp.request('GET', `/api/v1/customers/${customerId}/members`, { token: staffToken })
  expect(response.status).toBe(200)
  const page = (await response.json()) as Page<Member>
  return Object.fromEntries(page.items.map((member) => [member.email, member.role]))
}

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: mkdtempSync(join(tmpdir(), 'plinth-test-')) }),
      sitesPlugin(),
    ],
  })
  staffToken = await tp.token()
  const brand = await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: 'Elsewhere' } })
  const brandId = ((await brand.json()) as { id: string }).id
  const db = tp.panel.store.db
  const plain = (email: string) => createTestUser(db, { email, staffRole: null })
  let otherBrandStaff: User
  ;[otherBrandStaff, owner, admin, developer, outsider, leaver] = await Promise.all([
    createTestUser(db, { email: 'elsewhere@example.test', staffRole: 'brand', brandId }),
    plain('owner@example.test'),
    plain('admin@example.test'),
    plain('developer@example.test'),
    plain('outsider@example.test'),
    plain('leaver@example.test'),
  ])
  ;[ownerToken, adminToken, developerToken, otherBrandToken] = await Promise.all([
    tp.token({ user: owner }),
    tp.token({ user: admin }),
    tp.token({ user: developer }),
    tp.token({ user: otherBrandStaff }),
  ])
})
afterAll(() => tp.panel.close())

describe('adding members', () => {
  test('staff add an existing user by e-mail: 201, Location, and the member', async () => {
    const customerId = await createCustomer()
    const response = await addMember(staffToken, customerId, 'Owner@Example.TEST', 'owner')
    expect(response.status).toBe(201)
    const member = (await response.json()) as Member
    expect(member).toEqual({
      userId: owner.id,
      email: owner.email,
      role: 'owner',
      createdAt: expect.any(String),
    })
    expect(response.headers.get('location')).toBe(`/api/v1/customers/${customerId}/members/${owner.id}`)
    expect(await roles(customerId)).toEqual({ [owner.email]: 'owner' })
    // The Location can be read back.
    const read = await tp.request('GET', `/api/v1/customers/${customerId}/members/${owner.id}`, {
      token: staffToken,
    })
    expect(await read.json()).toEqual(member)
  })

  test('a member’s /me names their teams and brands, so a portal need not read customers', async () => {
    const customerId = await createCustomer('Named Team Co')
    const member = await createTestUser(tp.panel.store.db, { email: 'named@example.test', staffRole: null })
    expect((await addMember(staffToken, customerId, member.email, 'developer')).status).toBe(201)
    const me = await tp.request('GET', '/api/v1/me', { token: await tp.token({ user: member }) })
    const brand = await tp.request('GET', `/api/v1/customers/${customerId}`, { token: staffToken })
    expect((await me.json()).memberships).toEqual([
      {
        customerId,
        role: 'developer',
        customerName: 'Named Team Co',
        brandId: ((await brand.json()) as { brandId: string }).brandId,
      },
    ])
  })

  test('an e-mail no user has is 422 unknown_user at body.email', async () => {
    const customerId = await team([owner, 'owner'])
    const response = await addMember(staffToken, customerId, 'stranger@example.test', 'developer')
    await expectFieldProblem(response, 422, 'unknown_user', 'body.email')
  })

  test('staff users cannot join a team, and look like unknown e-mails: 422 unknown_user at body.email', async () => {
    // Found by review: staff could be added (even as owner) and counted towards the last-owner rule; a distinct
    // code would then tell any owner which e-mails belong to staff.
    const customerId = await team([owner, 'owner'])
    const staff = await createTestUser(tp.panel.store.db, {
      email: 'staffer@example.test',
      staffRole: 'platform',
    })
    await expectFieldProblem(
      await addMember(staffToken, customerId, staff.email, 'owner'),
      422,
      'unknown_user',
      'body.email',
    )
  })

  test('adding a member twice is 409 already_member, whatever the role', async () => {
    const customerId = await team([owner, 'owner'], [developer, 'developer'])
    await expectProblem(
      await addMember(staffToken, customerId, developer.email, 'admin'),
      409,
      'already_member',
    )
    expect(await roles(customerId)).toEqual({ [owner.email]: 'owner', [developer.email]: 'developer' })
  })

  test('an owner manages the whole team, owners included', async () => {
    const customerId = await team([owner, 'owner'])
    expect((await addMember(ownerToken, customerId, admin.email, 'owner')).status).toBe(201)
    expect((await setRole(ownerToken, customerId, admin, 'admin')).status).toBe(200)
    expect((await addMember(ownerToken, customerId, outsider.email, 'billing')).status).toBe(201)
    expect((await removeMember(ownerToken, customerId, outsider)).status).toBe(204)
    expect(await roles(customerId)).toEqual({ [owner.email]: 'owner', [admin.email]: 'admin' })
  })
})

describe('the last owner', () => {
  test('demoting or removing the last owner is 409 last_owner, for staff and the owner alike', async () => {
    const customerId = await team([owner, 'owner'], [admin, 'admin'])
    for (const token of [staffToken, ownerToken]) {
      await expectProblem(await setRole(token, customerId, owner, 'admin'), 409, 'last_owner')
      await expectProblem(await removeMember(token, customerId, owner), 409, 'last_owner')
    }
    expect(await roles(customerId)).toEqual({ [owner.email]: 'owner', [admin.email]: 'admin' })
  })

  test('with a second owner, an owner may be demoted or removed', async () => {
    const customerId = await team([owner, 'owner'], [admin, 'owner'])
    const demoted = await setRole(ownerToken, customerId, admin, 'developer')
    expect(demoted.status).toBe(200)
    expect(await demoted.json()).toMatchObject({ userId: admin.id, role: 'developer' })
    expect((await setRole(staffToken, customerId, admin, 'owner')).status).toBe(200)
    expect((await removeMember(adminToken, customerId, owner)).status).toBe(204)
    expect(await roles(customerId)).toEqual({ [admin.email]: 'owner' })
  })
})

describe('what admins and developers may do', () => {
  test('an admin cannot add, promote, demote or remove an owner: 403 owner_change_not_allowed', async () => {
    const customerId = await team([owner, 'owner'], [admin, 'admin'], [developer, 'developer'])
    const refusals = [
      await addMember(adminToken, customerId, outsider.email, 'owner'),
      await setRole(adminToken, customerId, developer, 'owner'),
      await setRole(adminToken, customerId, owner, 'admin'),
      await removeMember(adminToken, customerId, owner),
    ]
    for (const response of refusals) await expectProblem(response, 403, 'owner_change_not_allowed')
    expect(await roles(customerId)).toEqual({
      [owner.email]: 'owner',
      [admin.email]: 'admin',
      [developer.email]: 'developer',
    })
  })

  test('an admin manages the rest of the team', async () => {
    const customerId = await team([owner, 'owner'], [admin, 'admin'])
    expect((await addMember(adminToken, customerId, outsider.email, 'developer')).status).toBe(201)
    expect((await setRole(adminToken, customerId, outsider, 'billing')).status).toBe(200)
    expect(
      (await tp.request('GET', `/api/v1/customers/${customerId}/members`, { token: adminToken })).status,
    ).toBe(200)
    expect((await removeMember(adminToken, customerId, outsider)).status).toBe(204)
    expect(await roles(customerId)).toEqual({ [owner.email]: 'owner', [admin.email]: 'admin' })
  })

  test('a developer cannot manage members: 403 insufficient_scope naming members:manage', async () => {
    const customerId = await team([owner, 'owner'], [developer, 'developer'])
    const responses = [
      await tp.request('GET', `/api/v1/customers/${customerId}/members`, { token: developerToken }),
      await addMember(developerToken, customerId, outsider.email, 'developer'),
      await setRole(developerToken, customerId, developer, 'admin'),
      await removeMember(developerToken, customerId, owner),
    ]
    for (const response of responses) {
      expect((await expectProblem(response, 403, 'insufficient_scope')).scope).toBe('members:manage')
    }
  })
})

describe('tenancy', () => {
  test('a customer outside the caller’s view is 404, for another brand’s staff and another team’s admin', async () => {
    const customerId = await team([owner, 'owner'], [developer, 'developer'])
    // The admin manages another team, so holds members:manage, but not on this customer.
    await team([outsider, 'owner'], [admin, 'admin'])
    for (const token of [otherBrandToken, adminToken]) {
      const responses = [
        await tp.request('GET', `/api/v1/customers/${customerId}/members`, { token }),
        await addMember(token, customerId, outsider.email, 'developer'),
        await setRole(token, customerId, developer, 'billing'),
        await removeMember(token, customerId, developer),
      ]
      for (const response of responses) await expectProblem(response, 404, 'not_found')
    }
    expect(await roles(customerId)).toEqual({ [owner.email]: 'owner', [developer.email]: 'developer' })
  })

  test('a user who is not on the team, or a malformed id, is 404', async () => {
    const customerId = await team([owner, 'owner'])
    await expectProblem(await setRole(staffToken, customerId, outsider, 'admin'), 404, 'not_found')
    await expectProblem(await removeMember(staffToken, customerId, outsider), 404, 'not_found')
    const malformed = await tp.request('DELETE', `/api/v1/customers/${customerId}/members/nobody`, {
      token: staffToken,
    })
    await expectProblem(malformed, 404, 'not_found')
  })
})

describe('tokens follow the member’s roles', () => {
  test('a demoted, then removed, member’s token loses those permissions at once', async () => {
    const customerId = await team([owner, 'owner'], [leaver, 'admin'])
    const site = await tp.request('POST', '/api/v1/sites', {
      token: staffToken,
      body: { customerId, name: 'Shop', type: 'wordpress', domain: 'leaver-shop.example.com' },
    })
    expect(site.status).toBe(201)
    const token = await tp.token({ user: leaver, scopes: ['customer:manage', 'site:read'] })
    const rename = () =>
      tp.request('PATCH', `/api/v1/customers/${customerId}`, { token, body: { name: 'Renamed Co' } })
    const sites = () => tp.request('GET', `/api/v1/sites?customerId=${customerId}`, { token })
    expect((await rename()).status).toBe(200)

    expect((await setRole(ownerToken, customerId, leaver, 'developer')).status).toBe(200)
    const refused = await expectProblem(await rename(), 403, 'insufficient_scope')
    expect(refused.scope).toBe('customer:manage')
    expect(((await (await sites()).json()) as { items: unknown[] }).items).toHaveLength(1)

    expect((await removeMember(ownerToken, customerId, leaver)).status).toBe(204)
    expect((await expectProblem(await sites(), 403, 'insufficient_scope')).scope).toBe('site:read')
  })

  test('a member removed from one of two teams no longer sees that customer through their token', async () => {
    const kept = await team([owner, 'owner'], [admin, 'admin'])
    const lost = await team([owner, 'owner'], [admin, 'admin'])
    const site = await tp.request('POST', '/api/v1/sites', {
      token: staffToken,
      body: { customerId: lost, name: 'Blog', type: 'wordpress', domain: 'lost-blog.example.com' },
    })
    expect(site.status).toBe(201)
    const token = await tp.token({ user: admin, scopes: ['site:read', 'customer:read'] })
    const sites = async () => {
      const response = await tp.request('GET', `/api/v1/sites?customerId=${lost}`, { token })
      expect(response.status).toBe(200)
      return ((await response.json()) as { items: unknown[] }).items
    }
    expect(await sites()).toHaveLength(1)

    expect((await removeMember(ownerToken, lost, admin)).status).toBe(204)
    expect(await sites()).toEqual([])
    await expectProblem(await tp.request('GET', `/api/v1/customers/${lost}`, { token }), 404, 'not_found')
    expect((await tp.request('GET', `/api/v1/customers/${kept}`, { token })).status).toBe(200)
  })
})
