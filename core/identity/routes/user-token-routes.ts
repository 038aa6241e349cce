// Staff over anyone's API tokens: list a user's tokens and revoke one, within the users they may see.

import { type Expression, type SqlBool, sql } from 'kysely'
import type { Caller } from '../../auth/caller.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { Problem } from '../../problem/problem.ts'
import type { Db } from '../../store/store.ts'
import { revokeTokenIn } from '../account-controls.ts'
import { apiTokensQuery, toApiToken } from '../api-tokens.ts'
import type { ApiTokensTable } from '../identity-tables.ts'
import { ApiToken } from '../schemas.ts'
import type { KernelRouteContext } from './kernel-context.ts'
import { userInView } from './user-routes.ts'

/** A token as staff see it listed: never its secret; whose it is is in the path. */
function listedToken(row: ApiTokensTable) {
  const { userId: _owner, ...shown } = toApiToken(row)
  return shown
}

/**
 * The tokens of user `id` that `caller` may see and revoke: every one when the caller holds the whole account
 * (platform staff; brand staff for their staff and their customers' members of no other brand); otherwise only
 * those limited to one of the caller's brand's customers, so another brand's customers never show.
 */
async function tokensInView(db: Db, caller: Caller, id: string) {
  const { whole } = await userInView(db, caller, id)
  const tokens = apiTokensQuery(db, id)
  if (whole) return tokens
  const inBrand: Expression<SqlBool> = sql<SqlBool>`api_tokens.customer_id in (select customer_id from tenants where brand_id = ${caller.user.brandId ?? ''})`
  return tokens.where(inBrand)
}

/** GET /users/{id}/api-tokens and DELETE /users/{id}/api-tokens/{tokenId}. */
export function userTokenRoutes(context: KernelRouteContext): RouteDefinition[] {
  const { store } = context
  return [
    defineRoute({
      method: 'GET',
      path: '/users/:id/api-tokens',
      operationId: 'listUserApiTokens',
      summary: 'List a user’s API tokens',
      description:
        'Staff: the tokens of a user they may see (as `GET /users/{id}` decides) that are not revoked, expired ones included, oldest first; never their secrets. Brand staff see every token of their brand’s staff and of members of their customers only; of a user also on another brand’s teams, only the tokens limited to their own customers.',
      scope: 'user:read',
      staff: true,
      params: { id: 'usr' },
      list: { item: ApiToken, toItem: listedToken },
      handler: ({ params, caller }) => tokensInView(store.db, caller, params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/:id/api-tokens/:tokenId',
      operationId: 'revokeUserApiToken',
      summary: 'Revoke a user’s API token',
      description:
        'Staff: revokes a token of a user they may see (the tokens `GET /users/{id}/api-tokens` lists). It stops working at once: the next request with it is 401 `invalid_token`, in every panel process. Audited as `token.revoke` with the staff member as the actor.',
      scope: 'user:manage',
      staff: true,
      params: { id: 'usr', tokenId: 'tok' },
      responses: { 204: { description: 'Revoked.' } },
      async handler({ params, caller, audit }) {
        const revoked = await store.transaction(async (trx) => {
          const visible = await (await tokensInView(trx, caller, params.id))
            .where('api_tokens.id', '=', params.tokenId)
            .executeTakeFirst()
          return visible ? revokeTokenIn(trx, params.id, params.tokenId, audit) : null
        })
        if (!revoked) throw new Problem(kernelProblems.not_found)
        return Reply.noContent()
      },
    }),
  ]
}
