// DELETE /api/v1/users/{id} as staff see it: the user, their sessions, tokens and memberships go at once (204, then
// 404, audited); never yourself, never the last platform staff member, never a team's only owner; brand staff only
// users wholly of their brand.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from '../../pagination/paginate.ts'
import { tenancy } from '../../tenancy/tenancy.ts'
import { createKernelTestPanel, type TestPanel } from '../../testing/create-test-panel.ts'
import { expectProblem } from '../../testing/problems.ts'
import { signIn } from '../../testing/sessions.ts'
import { brandA, customerA, customerB, fixturePlugin, twoTenants } from '../../testing/tenancy-fixture.ts'
import { createTestUser } from '../../testing/users.ts'

const tenancyPlugin = fixturePlugin({
  description: 'Brands and customers for the user deletion tests.',
  scopes: ['gadget:read'],
  tenants: twoTenants,
})

let tp: TestPanel
let staffToken: string
let sequence = 0

const remove = (id: string, token = staffToken) => tp.request('DELETE', `/api/v1/users/${id}`, { token })

async function status(path: string, token = staffToken): Promise<number> {
  return (await tp.request('GET', path, { token })).status
}

/** A new user of `staffRole` (a plain user unless told). */
function newUser(staffRole: 'platform' | 'brand' | null = null, brandId?: string) {
  return createTestUser(tp.panel.store.db, {
    email: `user-${sequence++}@example.test`,
    staffRole,
    ...(brandId ? { brandId } : {}),
  })
}

async function teamOf(customerId: string): Promise<string[]> {
  return (await tenancy.members.list(tp.panel.store.db, customerId).execute()).map((row) => row.userId)
}

beforeAll(async () => {
  tp = await createKernelTestPanel({ plugins: [tenancyPlugin] })
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

describe('deleting a user', () => {
  test('their sessions end, their tokens stop, they leave their teams: 204, then 404, audited as user.delete', async () => {
    const owner = await newUser()
    const member = await newUser()
    await tenancy.members.add(tp.panel.store.db, customerA, owner.id, 'owner')
    await tenancy.members.add(tp.panel.store.db, customerA, member.id, 'developer')
    const token = await tp.token({ user: member })
    const session = await signIn(tp, member.email)
    expect(await status('/api/v1/me', token)).toBe(200)
    const response = await remove(member.id)
    expect(response.status).toBe(204)
    expect(await status(`/api/v1/users/${member.id}`)).toBe(404)
    await expectProblem(await tp.request('GET', '/api/v1/me', { token }), 401, 'invalid_token')
    const bySession = await tp.request('GET', '/api/v1/me', { headers: { cookie: session.cookie } })
    expect(bySession.status).toBe(401)
    expect(await teamOf(customerA)).not.toContain(member.id)
    expect(await teamOf(customerA)).toContain(owner.id)
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${member.id}`, { token: staffToken })
    ).json()) as Page<{ action: string; details: Record<string, unknown> }>
    expect(audit.items.map((entry) => entry.action)).toEqual(['user.delete', 'session.create'])
    expect(audit.items[0]?.details).toEqual({ email: member.email, staffRole: null, brandId: null })
    await expectProblem(await remove(member.id), 404, 'not_found')
  })

  test('the only owner of a team is refused with 409 user_in_use naming the teams; a co-owner is not', async () => {
    const owner = await newUser()
    const coOwner = await newUser()
    await tenancy.members.add(tp.panel.store.db, customerB, owner.id, 'owner')
    const body = await expectProblem(await remove(owner.id), 409, 'user_in_use')
    expect(body.blockers).toEqual([{ name: 'owned-teams', count: 1 }])
    // The detail says what to do: another owner, not "remove them".
    expect(body.detail).toContain('make another member owner')
    expect(await status(`/api/v1/users/${owner.id}`)).toBe(200)
    expect(await teamOf(customerB)).toContain(owner.id)
    await tenancy.members.add(tp.panel.store.db, customerB, coOwner.id, 'owner')
    expect((await remove(owner.id)).status).toBe(204)
    expect(await teamOf(customerB)).toEqual([coOwner.id])
  })

  test('staff cannot delete themselves: 409 cannot_delete_self', async () => {
    const self = await newUser('platform')
    const token = await tp.token({ user: self })
    await expectProblem(await remove(self.id, token), 409, 'cannot_delete_self')
    expect(await status(`/api/v1/users/${self.id}`)).toBe(200)
  })

  test('two platform staff deleting each other at once leave one: the other is refused', async () => {
    // Only these two are enabled platform staff: disable every other one first.
    const first = await newUser('platform')
    const second = await newUser('platform')
    const [firstToken, secondToken] = [await tp.token({ user: first }), await tp.token({ user: second })]
    const others = (await (
      await tp.request('GET', '/api/v1/users?limit=100', { token: staffToken })
    ).json()) as Page<{
      id: string
      staffRole: string | null
    }>
    for (const user of others.items)
      if (user.staffRole === 'platform' && user.id !== first.id && user.id !== second.id)
        expect(
          (await tp.request('POST', `/api/v1/users/${user.id}/disable`, { token: firstToken })).status,
        ).toBe(200)
    const answers = await Promise.all([remove(second.id, firstToken), remove(first.id, secondToken)])
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses[0]).toBe(204)
    // The loser either was refused as the last platform staff member, or was already gone when it was checked.
    expect([401, 409]).toContain(statuses[1] ?? 0)
    const refused = answers.find((answer) => answer.status === 409)
    if (refused) await expectProblem(refused, 409, 'last_platform_staff')
    const left = [
      await status(`/api/v1/users/${first.id}`, firstToken),
      await status(`/api/v1/users/${second.id}`, secondToken),
    ]
    expect(left.filter((answer) => answer === 200)).toHaveLength(1)
    // The survivor is the last enabled one; only it could delete it, and it may not delete itself.
    const survivor = left[0] === 200 ? first : second
    const survivorToken = left[0] === 200 ? firstToken : secondToken
    await expectProblem(await remove(survivor.id, survivorToken), 409, 'cannot_delete_self')
    for (const user of others.items)
      if (user.staffRole === 'platform' && user.id !== first.id && user.id !== second.id)
        await tp.request('POST', `/api/v1/users/${user.id}/enable`, { token: survivorToken })
  })

  test('brand staff delete only users wholly of their brand; without user:manage it is 403; unknown is 404', async () => {
    const brandStaff = await newUser('brand', brandA)
    const brandToken = await tp.token({ user: brandStaff })
    const colleague = await newUser('brand', brandA)
    const platform = await newUser('platform')
    // Platform staff are not theirs to see.
    await expectProblem(await remove(platform.id, brandToken), 404, 'not_found')
    // A member of their customer's team who is also on another brand's team is not wholly theirs.
    const shared = await newUser()
    await tenancy.members.add(tp.panel.store.db, customerA, shared.id, 'developer')
    await tenancy.members.add(tp.panel.store.db, customerB, shared.id, 'developer')
    const outside = await expectProblem(await remove(shared.id, brandToken), 403, 'user_outside_brand')
    expect(outside.detail).toContain('only platform staff may delete them')
    const reader = await tp.token({ scopes: ['user:read'] })
    await expectProblem(await remove(colleague.id, reader), 403, 'insufficient_scope')
    await expectProblem(await remove('usr_01J0000000000000000000000Z'), 404, 'not_found')
    expect((await remove(colleague.id, brandToken)).status).toBe(204)
    expect(await status(`/api/v1/users/${shared.id}`)).toBe(200)
  })
})
