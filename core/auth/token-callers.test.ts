// Kept token callers never outlive a change: revocation, expiry, team and role changes, disabled and deleted users
// count on the very next request, whether this process made the change or another one on the same database did (the
// same SQLite file, or the same PostgreSQL schema: another instance).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { sql } from 'kysely'
import { setUserDisabled } from '../identity/account-controls.ts'
import { issueApiToken, revokeApiToken } from '../identity/api-tokens.ts'
import type { IdentityTables } from '../identity/identity-tables.ts'
import type { User } from '../identity/users.ts'
import { createPanel, type Panel } from '../panel/create-panel.ts'
import { defineRoute } from '../plugin/route.ts'
import type { Store } from '../store/store.ts'
import { outsideTransactions } from '../store/transaction-context.ts'
import type { TenancyTables } from '../tenancy/tenancy-tables.ts'
import { selectVisible } from '../tenancy/tenant-view.ts'
import { addMember, changeMemberRole, removeMember } from '../tenancy/tenants.ts'
import { waitFor } from '../testing/async.ts'
import { expectProblem } from '../testing/problems.ts'
import { brandA, customerA, customerB, fixturePlugin, twoTenants } from '../testing/tenancy-fixture.ts'
import { openTestStore, testEngine } from '../testing/test-store.ts'
import { createTestUser } from '../testing/users.ts'

const secret = 'token-callers-test-secret-token-callers'
const policy = { defaultDays: 30, maxDays: 365 }

interface MeBody {
  readonly memberships: readonly { customerId: string; role: string }[]
  readonly scopes: readonly string[]
}

let dataDir: string
let panel: Panel
/** A second connection to the panel's database file: what the CLI on the same DATA_DIR is to the server. */
let cli: Store

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'plinth-token-callers-'))
  const path = join(dataDir, 'plinth.sqlite')
  panel = await createPanel({
    store: await openTestStore(path),
    plugins: [
      fixturePlugin({
        description: 'Customers and scopes for the kept-caller tests.',
        scopes: ['gadget:read', 'gadget:create', 'customer:manage', 'billing:manage', 'widget:admin'],
        tenants: twoTenants,
        routes: () => [
          defineRoute({
            method: 'GET',
            path: '/view',
            operationId: 'showView',
            summary: 'The customers the caller may read gadgets of',
            scope: 'gadget:read',
            responses: { 200: { description: 'The view.' } },
            handler: ({ view }) => view,
          }),
          // A list read: on PostgreSQL it is answered on the kept caller, beside the reads that confirm it.
          defineRoute({
            method: 'GET',
            path: '/visible',
            operationId: 'listVisible',
            summary: 'The customers the caller may read gadgets of, as a list',
            scope: 'gadget:read',
            list: {
              item: Type.Object({ id: Type.String() }, { $id: 'VisibleCustomer' }),
              key: 'customer_id',
              toItem: (row: { customer_id: string }) => ({ id: row.customer_id }),
            },
            responses: { 200: { description: 'The customers.' } },
            handler: ({ view }) =>
              selectVisible(panel.store.db.withTables<TenancyTables>(), 'tenants', view).select(
                'tenants.customer_id',
              ),
          }),
        ],
      }),
    ],
    secret,
  })
  cli = await openTestStore(path)
})

afterAll(async () => {
  await cli.close()
  await panel.close()
  rmSync(dataDir, { recursive: true, force: true })
})

let users = 0
async function member(customerId: string, role: 'owner' | 'developer' | 'billing'): Promise<User> {
  users++
  const user = await createTestUser(panel.store.db, { email: `member${users}@example.test`, staffRole: null })
  await addMember(panel.store.db, customerId, user.id, role)
  return user
}

async function tokenOf(user: User, expiresAt: string | null = null) {
  return panel.store.transaction((trx) =>
    issueApiToken(trx, user, { name: 'test', scopes: ['*'], customerId: null, expiresAt }, policy),
  )
}

function me(token: string): Promise<Response> {
  return panel.handle(
    new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${token}` } }),
  )
}

async function meBody(token: string): Promise<MeBody> {
  const response = await me(token)
  expect(response.status).toBe(200)
  return (await response.json()) as MeBody
}

/** The teams and roles `/me` shows (its names and brands aside). */
const rolesOf = (body: MeBody) => body.memberships.map(({ customerId, role }) => ({ customerId, role }))

describe('a kept token caller', () => {
  test('is kept: a later request of the same token reads the token row and nothing else, in one statement', async () => {
    const user = await member(customerA, 'developer')
    const { token } = await tokenOf(user)
    const view = () =>
      panel.handle(
        new Request('http://localhost/api/v1/view', { headers: { authorization: `Bearer ${token}` } }),
      )
    expect((await view()).status).toBe(200)
    const statements: string[] = []
    const stop = panel.store.observeStatements((statement) => statements.push(statement))
    try {
      expect((await view()).status).toBe(200)
    } finally {
      stop()
    }
    // The rate window PostgreSQL shares between instances is the limiter's statement, not authentication's.
    const authentication = statements.filter((statement) => !statement.includes('rate_windows'))
    expect(authentication).toHaveLength(1)
    expect(authentication[0]).toContain('api_tokens')
  })

  test('is refused on the very next request once the token is revoked, here or by another process', async () => {
    const user = await member(customerA, 'owner')
    const here = await tokenOf(user)
    const there = await tokenOf(user)
    await meBody(here.token)
    await meBody(there.token)

    await revokeApiToken(panel.store.db, user.id, here.record.id)
    await expectProblem(await me(here.token), 401, 'invalid_token')

    await revokeApiToken(cli.db, user.id, there.record.id)
    await expectProblem(await me(there.token), 401, 'invalid_token')
  })

  test('is refused once its token expires, though nothing in the database changed', async () => {
    const user = await member(customerA, 'developer')
    const soon = await tokenOf(user, new Date(Date.now() + 1_500).toISOString())
    await meBody(soon.token)
    await Bun.sleep(1_600)
    await expectProblem(await me(soon.token), 401, 'token_expired')
  })

  test('follows a role change on the next request, made here or by another process', async () => {
    const user = await member(customerA, 'owner')
    const { token } = await tokenOf(user)
    expect((await meBody(token)).scopes).toContain('billing:manage')

    await changeMemberRole(panel.store.db, customerA, user.id, 'developer')
    const developer = await meBody(token)
    expect(rolesOf(developer)).toEqual([{ customerId: customerA, role: 'developer' }])
    expect(developer.scopes).not.toContain('billing:manage')

    await changeMemberRole(cli.db, customerA, user.id, 'billing')
    expect(rolesOf(await meBody(token))).toEqual([{ customerId: customerA, role: 'billing' }])
  })

  test('follows a change written as raw SQL with the table name in another case', async () => {
    const user = await member(customerA, 'owner')
    const { token } = await tokenOf(user)
    await meBody(token)
    // SQLite names are case-insensitive; the watch once missed this and kept the owner's caller.
    await sql`UPDATE Memberships SET role = 'developer' WHERE user_id = ${user.id}`.execute(panel.store.db)
    expect(rolesOf(await meBody(token))).toEqual([{ customerId: customerA, role: 'developer' }])
  })

  test('follows team changes on the next request, made here or by another process', async () => {
    const user = await member(customerA, 'developer')
    const { token } = await tokenOf(user)
    expect((await meBody(token)).memberships.map((m) => m.customerId)).toEqual([customerA])

    await addMember(cli.db, customerB, user.id, 'developer')
    expect((await meBody(token)).memberships.map((m) => m.customerId).sort()).toEqual(
      [customerA, customerB].sort(),
    )

    await removeMember(panel.store.db, customerA, user.id)
    expect((await meBody(token)).memberships.map((m) => m.customerId)).toEqual([customerB])

    await removeMember(cli.db, customerB, user.id)
    const none = await meBody(token)
    expect(none.memberships).toEqual([])
    expect(none.scopes).toEqual([])
  })

  test('is refused (account_disabled) on the very next request once its user is disabled, here or by another process', async () => {
    const user = await member(customerA, 'owner')
    const { token } = await tokenOf(user)
    await meBody(token)
    await meBody(token)

    // The CLI disables the user on its own connection, as `npm run panel -- user disable` does beside the server.
    expect((await setUserDisabled(cli, user.id, true))?.changed).toBe(true)
    await expectProblem(await me(token), 401, 'account_disabled')
    await expectProblem(await me(token), 401, 'account_disabled')
    expect((await setUserDisabled(cli, user.id, false))?.changed).toBe(true)
    await meBody(token)

    await setUserDisabled(panel.store, user.id, true)
    await expectProblem(await me(token), 401, 'account_disabled')
    await setUserDisabled(panel.store, user.id, false)
    await meBody(token)
  })

  test('is refused on the next request once its user is deleted by another process', async () => {
    const user = await member(customerB, 'owner')
    const { token } = await tokenOf(user)
    await meBody(token)
    await cli.db
      .withTables<IdentityTables & TenancyTables>()
      .deleteFrom('users')
      .where('id', '=', user.id)
      .execute()
    await expectProblem(await me(token), 401, 'invalid_token')
  })

  test('follows a customer moved to another brand by another process, for brand staff limited to it', async () => {
    const staff = await createTestUser(panel.store.db, {
      email: 'brand-staff@example.test',
      staffRole: 'brand',
      brandId: brandA,
    })
    const limited = await panel.store.transaction((trx) =>
      issueApiToken(
        trx,
        staff,
        { name: 'limited', scopes: ['*'], customerId: customerA, expiresAt: null },
        policy,
      ),
    )
    const view = async () => {
      const response = await panel.handle(
        new Request('http://localhost/api/v1/view', {
          headers: { authorization: `Bearer ${limited.token}` },
        }),
      )
      expect(response.status).toBe(200)
      return response.json()
    }
    const moveCustomerA = (brandId: string) =>
      cli.db
        .withTables<IdentityTables & TenancyTables>()
        .updateTable('tenants')
        .set({ brand_id: brandId })
        .where('customer_id', '=', customerA)
        .execute()
    expect(await view()).toEqual({ kind: 'customers', customerIds: [customerA] })
    await moveCustomerA('brd_01JDQ3V6Y4T1ZK0M2N5P7R9SZZ')
    try {
      expect(await view()).toEqual({ kind: 'customers', customerIds: [] })
    } finally {
      await moveCustomerA(brandA)
    }
    expect(await view()).toEqual({ kind: 'customers', customerIds: [customerA] })
  })
})

describe('a list read by a kept token caller', () => {
  const visible = (token: string) =>
    panel.handle(
      new Request('http://localhost/api/v1/visible', { headers: { authorization: `Bearer ${token}` } }),
      { address: '192.0.2.1' },
    )
  const ids = async (token: string) => {
    const response = await visible(token)
    expect(response.status).toBe(200)
    return ((await response.json()) as { items: { id: string }[] }).items.map((item) => item.id)
  }

  test('reads the token, counts the request and reads the list: on PostgreSQL all at once, in one round trip', async () => {
    const user = await member(customerA, 'developer')
    const { token } = await tokenOf(user)
    expect(await ids(token)).toEqual([customerA])
    const started: string[] = []
    const stop = panel.store.observeStatements((statement) => started.push(statement))
    const kindOf = (statement: string) =>
      statement.includes('rate_windows') ? 'rate' : statement.includes('api_tokens') ? 'token' : 'list'
    try {
      if (testEngine === 'sqlite') {
        expect((await visible(token)).status).toBe(200)
        expect(started.map(kindOf)).toEqual(['token', 'list'])
        return
      }
      // Another process holds the tokens table: the token read waits, the list read does not, and no answer
      // leaves before the token is confirmed.
      let answer: Response | undefined
      await cli.transaction(async (trx) => {
        await sql`lock table api_tokens in access exclusive mode`.execute(trx)
        // Sent as a client would, not from inside this test's transaction.
        const pending = outsideTransactions(() => visible(token)).then((response) => {
          answer = response
        })
        await waitFor('the list to be read beside the waiting token read', async () =>
          started.map(kindOf).includes('list') ? true : undefined,
        )
        await Bun.sleep(50)
        expect(answer).toBeUndefined()
        void pending
      })
      await waitFor('the answer', async () => answer)
      expect(answer?.status).toBe(200)
      expect(started.map(kindOf).sort()).toEqual(['list', 'rate', 'token'])
    } finally {
      stop()
    }
  })

  test('is refused, its rows never sent, once another process revoked the token', async () => {
    const user = await member(customerA, 'owner')
    const { token, record } = await tokenOf(user)
    expect(await ids(token)).toEqual([customerA])
    await revokeApiToken(cli.db, user.id, record.id)
    const refused = await visible(token)
    expect(await refused.clone().text()).not.toContain(customerA)
    await expectProblem(refused, 401, 'invalid_token')
  })

  test('follows a team change made by another process on the very next request', async () => {
    const user = await member(customerA, 'developer')
    const { token } = await tokenOf(user)
    expect(await ids(token)).toEqual([customerA])
    await addMember(cli.db, customerB, user.id, 'developer')
    expect((await ids(token)).sort()).toEqual([customerA, customerB].sort())
    await removeMember(cli.db, customerA, user.id)
    expect(await ids(token)).toEqual([customerB])
  })

  test('is 403 for a kept caller without the scope, and 401 once its token expired', async () => {
    const user = await member(customerA, 'billing')
    const { token } = await tokenOf(user, new Date(Date.now() + 1_500).toISOString())
    await expectProblem(await visible(token), 403, 'insufficient_scope')
    await expectProblem(await visible(token), 403, 'insufficient_scope')
    await Bun.sleep(1_600)
    await expectProblem(await visible(token), 401, 'token_expired')
  })
})
