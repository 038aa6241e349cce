// Issuing and checking API tokens: scopes no wider than the creator's, a lifetime within policy, one customer at most.

import { generateApiToken, hashApiToken } from '../auth/api-token.ts'
import { wildcardScope } from '../auth/caller.ts'
import { newId, nowIso } from '../ids/ids.ts'
import type { ProblemItem } from '../problem/problem.ts'
import type { Db, Trx } from '../store/store.ts'
import type { ApiTokensTable, KernelTables } from './tables.ts'
import type { User } from './users.ts'

/** Token lifetime policy of an installation. */
export interface TokenLifetimePolicy {
  /** Lifetime when the request sets none. Default 90 days. */
  readonly defaultDays: number
  /** Longest lifetime allowed. Default 365 days. */
  readonly maxDays: number
}

/** A token as listed (never its secret). */
export interface ApiToken {
  readonly id: string
  readonly name: string
  readonly userId: string
  readonly scopes: readonly string[]
  readonly customerId: string | null
  readonly expiresAt: string
  readonly createdAt: string
  readonly lastUsedAt: string | null
}

/** What a token is asked for. */
export interface TokenRequest {
  readonly name: string
  readonly scopes: readonly string[]
  readonly customerId: string | null
  /** ISO time; null for the default lifetime. */
  readonly expiresAt: string | null
}

const dayMs = 86_400_000

/** Codes of `errors[]` items when a token request is refused, beside the generic field codes. */
export const tokenRequestCodes = {
  unknown_scope: 'A requested scope is not declared by any plugin of this installation.',
  scope_not_held:
    'A requested scope is one the creator does not hold; a token never grants more than its creator.',
  unknown_customer: 'The customer the token would be limited to does not exist within the creator’s view.',
  expiry_in_past: 'The requested expiry is not in the future.',
  lifetime_too_long: 'The requested expiry is further away than the longest lifetime (one year by default).',
} as const

/**
 * The refusals of a token request, as 422 items (empty when it may be issued). `customerVisible` says whether
 * the named customer exists within the creator's view; the caller asks the tenant directory.
 */
export function checkTokenRequest(
  request: TokenRequest,
  creatorScopes: ReadonlySet<string>,
  panelScopes: ReadonlySet<string>,
  customerVisible: boolean,
  policy: TokenLifetimePolicy,
  now: number = Date.now(),
): ProblemItem[] {
  const items: ProblemItem[] = []
  request.scopes.forEach((scope, index) => {
    const location = `body.scopes.${index}`
    if (scope === wildcardScope) return
    if (!panelScopes.has(scope)) {
      items.push({
        location,
        code: 'unknown_scope',
        message: `"${scope}" is not a scope of this installation`,
      })
    } else if (!creatorScopes.has(scope)) {
      items.push({
        location,
        code: 'scope_not_held',
        message: `you do not hold "${scope}", so no token of yours can`,
      })
    }
  })
  if (request.customerId !== null && !customerVisible) {
    items.push({ location: 'body.customerId', code: 'unknown_customer', message: 'no such customer' })
  }
  if (request.expiresAt !== null) {
    const expires = Date.parse(request.expiresAt)
    if (Number.isNaN(expires)) {
      items.push({ location: 'body.expiresAt', code: 'invalid_format', message: 'must be an ISO 8601 time' })
    } else if (expires <= now) {
      items.push({ location: 'body.expiresAt', code: 'expiry_in_past', message: 'must be in the future' })
    } else if (expires > now + policy.maxDays * dayMs) {
      items.push({
        location: 'body.expiresAt',
        code: 'lifetime_too_long',
        message: `must be at most ${policy.maxDays} days from now`,
      })
    }
  }
  return items
}

/** The API form of a token row. */
export function toApiToken(row: ApiTokensTable): ApiToken {
  return {
    id: row.id,
    name: row.name,
    userId: row.user_id,
    scopes: JSON.parse(row.scopes) as string[],
    customerId: row.customer_id,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  }
}

/** Stores a new token for `user` (already checked) and returns it with its clear secret, shown once. */
export async function issueApiToken(
  trx: Trx,
  user: Pick<User, 'id'>,
  request: TokenRequest,
  policy: TokenLifetimePolicy,
): Promise<{ token: string; record: ApiToken }> {
  const token = generateApiToken()
  const now = Date.now()
  const row: ApiTokensTable = {
    id: newId('tok'),
    user_id: user.id,
    name: request.name,
    token_hash: hashApiToken(token),
    scopes: JSON.stringify([...new Set(request.scopes)]),
    customer_id: request.customerId,
    expires_at: new Date(
      request.expiresAt ? Date.parse(request.expiresAt) : now + policy.defaultDays * dayMs,
    ).toISOString(),
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
  }
  await trx.withTables<KernelTables>().insertInto('api_tokens').values(row).execute()
  return { token, record: toApiToken(row) }
}

/** A user's live (not revoked) tokens as a query, for `page()`: keyed by `id`. */
export function apiTokensQuery(db: Db, userId: string) {
  return db
    .withTables<KernelTables>()
    .selectFrom('api_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
}

/** Revokes one of a user's tokens; returns it, or null when the user has no such live token. */
export async function revokeApiToken(db: Db, userId: string, tokenId: string): Promise<ApiToken | null> {
  const row = await apiTokensQuery(db, userId).where('id', '=', tokenId).executeTakeFirst()
  if (!row) return null
  await db
    .withTables<KernelTables>()
    .updateTable('api_tokens')
    .set({ revoked_at: nowIso() })
    .where('id', '=', tokenId)
    .execute()
  return toApiToken(row)
}
