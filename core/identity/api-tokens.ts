// Issuing and checking API tokens: scopes no wider than the creator's, a lifetime within policy, one customer at most.

import { apiTokens } from '../auth/api-token.ts'
import { newId, nowIso } from '../ids/ids.ts'
import type { Db, Trx } from '../store/store.ts'
import type { ApiTokensTable, IdentityTables } from './identity-tables.ts'
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
  const token = apiTokens.generate()
  const now = Date.now()
  const row: ApiTokensTable = {
    id: newId('tok'),
    user_id: user.id,
    name: request.name,
    token_hash: apiTokens.hash(token),
    scopes: JSON.stringify([...new Set(request.scopes)]),
    customer_id: request.customerId,
    expires_at: new Date(
      request.expiresAt ? Date.parse(request.expiresAt) : now + policy.defaultDays * dayMs,
    ).toISOString(),
    created_at: nowIso(),
    last_used_at: null,
    revoked_at: null,
  }
  await trx.withTables<IdentityTables>().insertInto('api_tokens').values(row).execute()
  return { token, record: toApiToken(row) }
}

/** A user's live (not revoked) tokens as a query, for `page()`: keyed by `id`. */
export function apiTokensQuery(db: Db, userId: string) {
  return db
    .withTables<IdentityTables>()
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
    .withTables<IdentityTables>()
    .updateTable('api_tokens')
    .set({ revoked_at: nowIso() })
    .where('id', '=', tokenId)
    .execute()
  return toApiToken(row)
}
