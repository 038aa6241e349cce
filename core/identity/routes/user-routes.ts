// Users as staff manage them: platform staff make anyone; brand staff make plain users and their own brand's staff.

import { Type as t } from '@sinclair/typebox'
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely'
import type { Caller } from '../../auth/caller.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { fieldProblem, Problem } from '../../problem/problem.ts'
import { defineProblems } from '../../problem/problem-code.ts'
import type { Db } from '../../store/store.ts'
import { orNotFound } from '../../tenancy/find-visible.ts'
import { setDisabledIn } from '../account-controls.ts'
import type { IdentityTables, UsersTable } from '../identity-tables.ts'
import { User } from '../schemas.ts'
import { deleteUserIn, userDeletionProblems } from '../user-deletion.ts'
import { createUser, prepareUser, toUser, UserError } from '../users.ts'
import type { KernelRouteContext } from './kernel-context.ts'

/** Refusals of the user operations. */
export const userProblems = defineProblems({
  email_taken: {
    status: 409,
    detail: 'A user with this e-mail address already exists.',
    description: 'E-mail addresses identify users; add the existing user to a team instead.',
  },
  staff_role_not_allowed: {
    status: 422,
    detail: 'You cannot give this staff role.',
    description: 'Brand staff can make plain users and staff of their own brand, never platform staff.',
  },
  cannot_disable_self: {
    status: 409,
    detail: 'You cannot disable your own account.',
    description:
      'Staff disable other users, never themselves (so an installation cannot lose its last staff member by a slip); ask another staff member, or use `npm run panel -- user disable`.',
  },
  user_outside_brand: {
    status: 403,
    detail: 'This user is also on teams of another brand’s customers; only platform staff may change them.',
    description:
      'Brand staff disable and enable only users wholly of their brand: its staff, and members of its customers only. For a user who is also on another brand’s teams, remove them from your customers’ teams instead (that takes effect at once, for their tokens too).',
  },
})

/** Scopes of the user operations (staff areas). */
export const userScopes = [
  { name: 'user:read', description: 'Read users and their API tokens (staff)', staff: true },
  {
    name: 'user:manage',
    description: 'Create, disable and enable users and staff, and revoke their API tokens (staff)',
    staff: true,
  },
] as const

const CreateUserBody = t.Object(
  {
    email: t.String({ format: 'email', maxLength: 320 }),
    password: t.String({ minLength: 12, maxLength: 256, description: '12 to 256 characters.' }),
    staffRole: t.Optional(
      t.Union([t.Literal('platform'), t.Literal('brand'), t.Null()], {
        description: 'Default null: a plain user, to add to teams.',
      }),
    ),
    brandId: t.Optional(
      t.String({ minLength: 1, maxLength: 64, description: 'For brand staff: their brand.' }),
    ),
  },
  { $id: 'CreateUserBody' },
)

/** The users a staff caller may see: platform staff all; brand staff their brand's staff and its customers' members. */
export function visibleUsers(caller: Caller): Expression<SqlBool> {
  if (caller.kind === 'platform') return sql<SqlBool>`1 = 1`
  const brandId = caller.user.brandId ?? ''
  return sql<SqlBool>`(users.brand_id = ${brandId} or users.id in (select user_id from memberships where customer_id in (select customer_id from tenants where brand_id = ${brandId})))`
}

/**
 * The users a staff caller holds wholly, whose whole account it may act on: platform staff all; brand staff their
 * brand's staff, and members of their brand's customers who are on no other brand's teams.
 */
export function wholeUsers(caller: Caller): RawBuilder<SqlBool> {
  if (caller.kind === 'platform') return sql<SqlBool>`1 = 1`
  const brandId = caller.user.brandId ?? ''
  const brandCustomers = sql`(select customer_id from tenants where brand_id = ${brandId})`
  return sql<SqlBool>`(users.brand_id = ${brandId} or (users.staff_role is null and users.id in (select user_id from memberships where customer_id in ${brandCustomers}) and not exists (select 1 from memberships as other where other.user_id = users.id and other.customer_id not in ${brandCustomers})))`
}

/** The user `id` as `caller` may see it (404 otherwise), and whether the caller holds the whole account. */
export async function userInView(
  db: Db,
  caller: Caller,
  id: string,
): Promise<{ readonly user: UsersTable; readonly whole: boolean }> {
  const row = orNotFound(
    await db
      .withTables<IdentityTables>()
      .selectFrom('users')
      .selectAll()
      .select(wholeUsers(caller).as('whole'))
      .where(visibleUsers(caller))
      .where('users.id', '=', id)
      .executeTakeFirst(),
  )
  const { whole, ...user } = row
  return { user, whole: Boolean(whole) }
}

/** POST /users/{id}/disable and /enable: the same checks, opposite changes. */
function disablingRoute(context: KernelRouteContext, disabled: boolean): RouteDefinition {
  const { store } = context
  return defineRoute({
    method: 'POST',
    path: disabled ? '/users/:id/disable' : '/users/:id/enable',
    operationId: disabled ? 'disableUser' : 'enableUser',
    summary: disabled ? 'Disable a user' : 'Enable a disabled user',
    description: disabled
      ? 'At once: every session of the user ends, their API tokens are refused with 401 `account_disabled` (from the very next request, in every panel process), and signing in is refused with the same code. Tokens are not revoked: enabling the user lets the unexpired ones work again (revoke them with `DELETE /users/{id}/api-tokens/{tokenId}` to end them for good). Staff cannot disable themselves; brand staff disable only users wholly of their brand. Disabling a disabled user changes nothing.'
      : 'The user may sign in again, and their API tokens that have not expired or been revoked work again; sessions ended by disabling stay ended. Enabling an enabled user changes nothing.',
    scope: 'user:manage',
    staff: true,
    params: { id: 'usr' },
    responses: { 200: { description: 'The user, with `disabledAt`.', schema: User } },
    problems: disabled
      ? [userProblems.cannot_disable_self, userProblems.user_outside_brand]
      : [userProblems.user_outside_brand],
    handler: ({ params, caller, audit }) =>
      store.transaction(async (trx) => {
        const { user, whole } = await userInView(trx, caller, params.id)
        if (disabled && user.id === caller.user.id) throw new Problem(userProblems.cannot_disable_self)
        if (!whole) throw new Problem(userProblems.user_outside_brand)
        const done = await setDisabledIn(trx, user.id, disabled, audit)
        return orNotFound(done).user
      }),
  })
}

/** POST, GET /users, GET /users/{id}, and disabling and enabling users. */
export function userRoutes(context: KernelRouteContext): RouteDefinition[] {
  const { store } = context
  const users = () => store.db.withTables<IdentityTables>().selectFrom('users').selectAll()
  return [
    defineRoute({
      method: 'POST',
      path: '/users',
      operationId: 'createUser',
      idempotent: true,
      summary: 'Create a user or a staff member',
      description:
        'A plain user (to add to customers’ teams), a brand’s staff (`staffRole: "brand"`, `brandId`), or platform staff (platform staff only).',
      scope: 'user:manage',
      staff: true,
      body: CreateUserBody,
      responses: {
        201: { description: 'The new user.', schema: User, headers: { Location: 'URL of the user.' } },
      },
      problems: [...Object.values(userProblems), kernelProblems.unknown_brand],
      async handler({ body, caller, audit }) {
        const staffRole = body.staffRole ?? null
        if (staffRole === 'platform' && caller.kind !== 'platform') {
          throw fieldProblem(userProblems.staff_role_not_allowed, 'body.staffRole')
        }
        let brandId: string | null = null
        if (staffRole === 'brand') {
          brandId = body.brandId ?? caller.user.brandId
          const brands = context.brandDirectory()
          const allowed = caller.kind === 'platform' || brandId === caller.user.brandId
          if (!brandId || !allowed || !brands || !(await brands.findBrand(brandId))) {
            throw fieldProblem(kernelProblems.unknown_brand, 'body.brandId')
          }
        } else if (body.brandId !== undefined) {
          throw new Problem(kernelProblems.validation_failed, {
            errors: [{ location: 'body.brandId', message: 'is only for brand staff', code: 'unknown_field' }],
          })
        }
        // The argon2id hash is made before the transaction, which would otherwise hold the store meanwhile.
        const prepared = await prepareUser({
          email: body.email,
          password: body.password,
          staffRole,
          brandId,
        }).catch((error) => {
          if (!(error instanceof UserError)) throw error
          throw new Problem(kernelProblems.validation_failed, {
            errors: [{ location: 'body.email', message: error.message, code: 'invalid_format' }],
          })
        })
        const user = await store.transaction(async (trx) => {
          // Again in the transaction, so a brand deleted meanwhile is seen (its deletion counts its staff).
          if (brandId && !(await context.brandDirectory()?.findBrand(brandId, trx)))
            throw fieldProblem(kernelProblems.unknown_brand, 'body.brandId')
          try {
            const created = await createUser(trx, prepared)
            await audit(trx, {
              action: 'user.create',
              subject: { type: 'user', id: created.id },
              customerId: null,
              brandId,
              details: { email: created.email, staffRole, brandId },
            })
            return created
          } catch (error) {
            if (error instanceof UserError && error.code === 'email_taken')
              throw new Problem(userProblems.email_taken)
            throw error
          }
        })
        return Reply.created(user, `/users/${user.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users',
      operationId: 'listUsers',
      summary: 'List users',
      description:
        'Platform staff see every user; brand staff see their brand’s staff and the members of its customers.',
      scope: 'user:read',
      staff: true,
      list: { item: User, key: 'users.id', toItem: toUser },
      handler: ({ caller }) => users().where(visibleUsers(caller)),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/:id',
      operationId: 'getUser',
      summary: 'Read a user',
      scope: 'user:read',
      staff: true,
      params: { id: 'usr' },
      responses: { 200: { description: 'The user.', schema: User } },
      async handler({ params, caller }) {
        return toUser(
          orNotFound(
            await users().where(visibleUsers(caller)).where('users.id', '=', params.id).executeTakeFirst(),
          ),
        )
      },
    }),
    disablingRoute(context, true),
    disablingRoute(context, false),
    defineRoute({
      method: 'DELETE',
      path: '/users/:id',
      operationId: 'deleteUser',
      summary: 'Delete a user',
      description:
        'At once, in one transaction: the user’s sessions end, their API tokens are deleted (refused from the very next request, in every panel process), and they leave every team; what they did stays in the audit log under their id. Refused with 409 `cannot_delete_self` for your own account, `last_platform_staff` for the last enabled platform staff member, and `user_in_use` (naming the `blockers`) while they are the only owner of a customer’s team. Brand staff delete only users wholly of their brand (403 `user_outside_brand` otherwise). Audited as `user.delete`; the user then answers 404.',
      scope: 'user:manage',
      staff: true,
      params: { id: 'usr' },
      responses: { 204: { description: 'The user is deleted.' } },
      problems: [...Object.values(userDeletionProblems), userProblems.user_outside_brand],
      async handler({ params, caller, audit }) {
        await store.transaction(async (trx) => {
          const { user, whole } = await userInView(trx, caller, params.id)
          if (!whole && user.id !== caller.user.id)
            throw new Problem(userProblems.user_outside_brand, {
              detail:
                'This user is also on teams of another brand’s customers; only platform staff may delete them.',
            })
          await deleteUserIn(trx, user, caller.user.id, context.userDependents, audit)
        })
        return Reply.noContent()
      },
    }),
  ]
}
