// Users as staff manage them: platform staff make anyone; brand staff make plain users and their own brand's staff.

import { Type as t } from '@sinclair/typebox'
import { type Expression, type SqlBool, sql } from 'kysely'
import type { Caller } from '../../auth/caller.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { fieldProblem, Problem } from '../../problem/problem.ts'
import { defineProblems } from '../../problem/problem-code.ts'
import { orNotFound } from '../../tenancy/find-visible.ts'
import type { IdentityTables } from '../identity-tables.ts'
import { User } from '../schemas.ts'
import { insertUser, prepareUser, toUser, UserError } from '../users.ts'
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
})

/** Scopes of the user operations (staff areas). */
export const userScopes = [
  { name: 'user:read', description: 'Read users (staff)', staff: true },
  { name: 'user:manage', description: 'Create users and staff (staff)', staff: true },
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
function visibleUsers(caller: Caller): Expression<SqlBool> {
  if (caller.kind === 'platform') return sql<SqlBool>`1 = 1`
  const brandId = caller.user.brandId ?? ''
  return sql<SqlBool>`(users.brand_id = ${brandId} or users.id in (select user_id from memberships where customer_id in (select customer_id from tenants where brand_id = ${brandId})))`
}

/** POST, GET /users and GET /users/{id}. */
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
          try {
            const created = await insertUser(trx, prepared)
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
  ]
}
