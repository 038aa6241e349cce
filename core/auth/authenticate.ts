// Turns a request's credentials (a bearer token, or the session cookie with its CSRF token) into a Caller, or the
// problem that explains why not.

import { toApiToken } from '../identity/api-tokens.ts'
import type { ApiTokensTable, IdentityTables } from '../identity/identity-tables.ts'
import { findUserById } from '../identity/users.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { Db } from '../store/store.ts'
import { apiTokens } from './api-token.ts'
import { buildCaller, type Caller, type ScopeHolding } from './caller.ts'
import { csrfTokenMatches, sessionCookieOf, validateSession } from './sessions.ts'
import { type TokenCallers, tokenCallers } from './token-callers.ts'

/** How often at most a token's `lastUsedAt` is written: once a minute keeps reads from turning into writes. */
const lastUsedResolutionMs = 60_000
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/** What authentication needs of the panel. */
export interface AuthenticationContext {
  readonly db: Db
  readonly secret: string
  readonly scopes: readonly ScopeHolding[]
}

const tokenCallersByContext = new WeakMap<AuthenticationContext, TokenCallers>()

/** The callers kept for this panel's tokens. */
function tokenCallersOf(context: AuthenticationContext): TokenCallers {
  let callers = tokenCallersByContext.get(context)
  if (!callers) {
    callers = tokenCallers(context.db)
    tokenCallersByContext.set(context, callers)
  }
  return callers
}

function unauthorized(ref: typeof kernelProblems.unauthenticated, error?: string): Problem {
  const challenge = error ? `Bearer realm="plinth", error="${error}"` : 'Bearer realm="plinth"'
  return new Problem(ref, { headers: { 'www-authenticate': challenge } })
}

/** The bearer token of a request, `''` for a malformed Authorization header, or null when it sends none. */
export function bearerTokenOf(request: Request): string | null {
  const header = request.headers.get('authorization')
  if (!header) return null
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1] ?? ''
}

async function callerOfToken(token: string, context: AuthenticationContext): Promise<Caller> {
  if (!apiTokens.isWellFormed(token)) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const callers = tokenCallersOf(context)
  // The token is read on every request, so revocation and expiry take effect at once, in any process.
  const { row, stamp } = await callers.read(apiTokens.hash(token))
  if (!row || row.revoked_at !== null) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const now = Date.now()
  if (Date.parse(row.expires_at) <= now) throw unauthorized(kernelProblems.token_expired, 'invalid_token')
  // A kept caller was made while its user was enabled; disabling the user writes `users`, which ends it.
  const kept = callers.get(row, stamp)
  if (kept) {
    await noteUse(row, now, context)
    return kept
  }
  const record = toApiToken(row)
  const user = await findUserById(context.db, record.userId)
  if (!user) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  if (user.disabledAt !== null) throw unauthorized(kernelProblems.account_disabled, 'invalid_token')
  await noteUse(row, now, context)
  const callerToken = {
    id: record.id,
    scopes: record.scopes,
    customerId: record.customerId,
    expiresAt: record.expiresAt,
  }
  const caller = await buildCaller(context.db, user, { token: callerToken }, context.scopes)
  callers.keep(row, stamp, caller)
  return caller
}

/** Records when a token was last used, at most once a minute: reads must not turn into writes. */
async function noteUse(row: ApiTokensTable, now: number, context: AuthenticationContext): Promise<void> {
  if (!row.last_used_at || now - Date.parse(row.last_used_at) > lastUsedResolutionMs) {
    await context.db
      .withTables<IdentityTables>()
      .updateTable('api_tokens')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', row.id)
      .execute()
  }
}

/** The panel's origin as the browser sees it: the request URL's (a host behind a trusted proxy puts its scheme there). */
function originOf(request: Request): string {
  return new URL(request.url).origin
}

/**
 * A state change carried by a cookie must prove it comes from our own pages: the browser says the request is
 * same-origin (or sends a matching Origin), and the page echoes the session's CSRF token.
 */
function checkCsrf(request: Request, sessionId: string, secret: string): void {
  if (safeMethods.has(request.method)) return
  const fetchSite = request.headers.get('sec-fetch-site')
  const origin = request.headers.get('origin')
  const sameOrigin =
    fetchSite !== null ? fetchSite === 'same-origin' : origin !== null && origin === originOf(request)
  if (!sameOrigin) throw new Problem(kernelProblems.cross_origin_request)
  const presented = request.headers.get('x-csrf-token')
  if (!presented || !csrfTokenMatches(presented, sessionId, secret))
    throw new Problem(kernelProblems.csrf_token_invalid)
}

async function callerOfSession(
  cookie: string,
  request: Request,
  context: AuthenticationContext,
): Promise<Caller> {
  const session = await validateSession(context.db, cookie)
  if (!session) throw unauthorized(kernelProblems.session_expired)
  checkCsrf(request, session.id, context.secret)
  const user = await findUserById(context.db, session.userId)
  if (!user) throw unauthorized(kernelProblems.session_expired)
  // Disabling a user deletes their sessions; one made by a login racing the disabling is refused here.
  if (user.disabledAt !== null) throw unauthorized(kernelProblems.account_disabled)
  return buildCaller(context.db, user, { session: { id: session.id } }, context.scopes)
}

/**
 * The caller of a request. A bearer token wins and cookies are then ignored (and need no CSRF token); without
 * one, the session cookie is used. Throws 401 without valid credentials, 403 for a cookie without CSRF proof.
 */
export async function authenticate(request: Request, context: AuthenticationContext): Promise<Caller> {
  const token = bearerTokenOf(request)
  if (token !== null) return callerOfToken(token, context)
  const cookie = sessionCookieOf(request)
  if (cookie) return callerOfSession(cookie, request, context)
  throw unauthorized(kernelProblems.unauthenticated)
}
