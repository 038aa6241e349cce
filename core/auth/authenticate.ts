// Turns a request's credentials into a Caller, or the 401 problem that explains why not.

import { findTokenByHash } from '../identity/api-tokens.ts'
import type { KernelTables } from '../identity/tables.ts'
import { findUserById, scopesOfUser } from '../identity/users.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { Db } from '../store/store.ts'
import { hashApiToken, isWellFormedApiToken } from './api-token.ts'
import { type Caller, effectiveScopes } from './caller.ts'

/** How often at most a token's `lastUsedAt` is written: once a minute keeps reads from turning into writes. */
const lastUsedResolutionMs = 60_000

function unauthorized(ref: typeof kernelProblems.unauthenticated, error?: string): Problem {
  const challenge = error ? `Bearer realm="plinth", error="${error}"` : 'Bearer realm="plinth"'
  return new Problem(ref, { headers: { 'www-authenticate': challenge } })
}

/** The bearer token of a request, or null when it sends none. */
export function bearerTokenOf(request: Request): string | null {
  const header = request.headers.get('authorization')
  if (!header) return null
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1] ?? ''
}

/**
 * The caller behind `Authorization: Bearer <token>`. Throws a 401 problem when there is no token, or it is
 * malformed, unknown, revoked or expired.
 */
export async function authenticate(
  request: Request,
  db: Db,
  panelScopes: ReadonlySet<string>,
): Promise<Caller> {
  const token = bearerTokenOf(request)
  if (token === null) throw unauthorized(kernelProblems.unauthenticated)
  if (!isWellFormedApiToken(token)) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const record = await findTokenByHash(db, hashApiToken(token))
  if (!record || record.revoked) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const now = Date.now()
  if (Date.parse(record.expiresAt) <= now) throw unauthorized(kernelProblems.token_expired, 'invalid_token')
  const user = await findUserById(db, record.userId)
  if (!user) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  if (!record.lastUsedAt || now - Date.parse(record.lastUsedAt) > lastUsedResolutionMs) {
    await db
      .withTables<KernelTables>()
      .updateTable('api_tokens')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', record.id)
      .execute()
  }
  return {
    kind: user.staffRole === 'platform' ? 'platform' : 'member',
    user: { id: user.id, email: user.email, brandId: user.brandId },
    token: {
      id: record.id,
      scopes: record.scopes,
      customerId: record.customerId,
      expiresAt: record.expiresAt,
    },
    scopes: effectiveScopes(record.scopes, scopesOfUser(user, panelScopes)),
  }
}
