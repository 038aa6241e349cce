// API token management: mint (shown once), list one's own, revoke.

import { Type as t } from '@sinclair/typebox'
import type { Caller } from '../../auth/caller.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { Problem } from '../../problem/problem.ts'
import { orNotFound } from '../../tenancy/find-visible.ts'
import { apiTokensQuery, issueApiToken, revokeApiToken, toApiToken } from '../api-tokens.ts'
import type { ApiTokensTable } from '../identity-tables.ts'
import { ApiToken, CreatedApiToken } from '../schemas.ts'
import { reviewTokenRequest } from '../token-request.ts'
import { tokenRequestProblems } from '../token-request-problems.ts'
import type { KernelRouteContext } from './kernel-context.ts'

const CreateTokenBody = t.Object(
  {
    name: t.String({
      minLength: 1,
      maxLength: 100,
      description: 'What the token is for, e.g. `billing sync`.',
    }),
    scopes: t.Array(t.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      description: 'Scopes (`gadget:read`) or `*` for every permission of the creator.',
    }),
    customerId: t.Optional(
      t.String({ minLength: 1, maxLength: 64, description: 'Limit the token to this customer.' }),
    ),
    expiresAt: t.Optional(
      t.String({
        format: 'date-time',
        // Elysia's date-time format also takes a bare date; an expiry needs its time (and zone) spelt out.
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T',
        maxLength: 64,
        description: 'A full ISO 8601 time. Default 90 days from now; at most one year.',
      }),
    ),
  },
  { $id: 'CreateApiTokenBody' },
)

/** A token as its owner sees it listed: never its secret, nor whose it is (their own). */
function shownToken(row: ApiTokensTable) {
  const { userId: _owner, ...shown } = toApiToken(row)
  return shown
}

/** POST, GET /api-tokens and DELETE /api-tokens/{id}. */
export function apiTokenRoutes(context: KernelRouteContext): RouteDefinition[] {
  const { store, limits, scopes } = context
  const policy = { defaultDays: limits.tokenDefaultLifetimeDays, maxDays: limits.tokenMaxLifetimeDays }
  /** The caller's live tokens; a token limited to a customer sees only those for that customer, so no other id leaks. */
  const ownTokens = (caller: Caller) => {
    const own = apiTokensQuery(store.db, caller.user.id)
    const limit = caller.token?.customerId ?? null
    return limit === null ? own : own.where('customer_id', '=', limit)
  }
  return [
    defineRoute({
      method: 'POST',
      path: '/api-tokens',
      operationId: 'createApiToken',
      idempotent: true,
      summary: 'Create an API token',
      description:
        'Open to a session or to a token carrying `*`. The token is in the answer once; only its hash is stored. It never grants more than its creator holds at the time it is used.',
      authenticated: true,
      wildcardOnly: true,
      showsSecret: true,
      body: CreateTokenBody,
      responses: {
        201: {
          description: 'The new token, with its secret.',
          schema: CreatedApiToken,
          headers: { Location: 'URL of the token.' },
        },
      },
      problems: [
        kernelProblems.wildcard_token_required,
        kernelProblems.unknown_customer,
        ...Object.values(tokenRequestProblems),
      ],
      async handler({ body, caller, audit }) {
        const request = {
          name: body.name,
          scopes: body.scopes,
          customerId: body.customerId ?? null,
          expiresAt: body.expiresAt ?? null,
        }
        const refusals = await reviewTokenRequest(store.db, caller, request, {
          directory: context.tenantDirectory(),
          panelScopes: scopes,
          policy,
        })
        if (refusals.length > 0) {
          throw new Problem(kernelProblems.validation_failed, {
            detail: `The token request has ${refusals.length} refused field${refusals.length === 1 ? '' : 's'}.`,
            errors: refusals,
          })
        }
        const user = { id: caller.user.id }
        const issued = await store.transaction(async (trx) => {
          const result = await issueApiToken(trx, user, request, policy)
          await audit(trx, {
            action: 'token.create',
            subject: { type: 'token', id: result.record.id },
            customerId: request.customerId,
            details: { name: request.name, scopes: request.scopes, expiresAt: result.record.expiresAt },
          })
          return result
        })
        const { userId: _owner, ...shown } = issued.record
        return Reply.created({ ...shown, token: issued.token }, `/api-tokens/${issued.record.id}`)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api-tokens',
      operationId: 'listApiTokens',
      summary: 'List the caller’s own API tokens',
      description:
        'Tokens of the signed-in user that are not revoked, oldest first; never their secrets. A token limited to a customer lists only the tokens limited to that customer.',
      authenticated: true,
      list: { item: ApiToken, toItem: shownToken },
      handler: ({ caller }) => ownTokens(caller),
    }),
    defineRoute({
      method: 'GET',
      path: '/api-tokens/:id',
      operationId: 'getApiToken',
      summary: 'Read one of the caller’s API tokens',
      description:
        'Never its secret. A token limited to a customer reads only tokens limited to that customer.',
      authenticated: true,
      params: { id: 'tok' },
      responses: { 200: { description: 'The token.', schema: ApiToken } },
      async handler({ params, caller }) {
        return shownToken(orNotFound(await ownTokens(caller).where('id', '=', params.id).executeTakeFirst()))
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api-tokens/:id',
      operationId: 'revokeApiToken',
      summary: 'Revoke one of the caller’s API tokens',
      description: 'Open to a session or to a token carrying `*`. The token stops working at once.',
      authenticated: true,
      wildcardOnly: true,
      params: { id: 'tok' },
      responses: { 204: { description: 'Revoked.' } },
      problems: [kernelProblems.wildcard_token_required],
      async handler({ params, caller, audit }) {
        const revoked = await store.transaction(async (trx) => {
          const done = await revokeApiToken(trx, caller.user.id, params.id)
          if (done)
            await audit(trx, {
              action: 'token.revoke',
              subject: { type: 'token', id: params.id },
              customerId: done.customerId,
            })
          return done
        })
        if (!revoked) throw new Problem(kernelProblems.not_found)
        return Reply.noContent()
      },
    }),
  ]
}
