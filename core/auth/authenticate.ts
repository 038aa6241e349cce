// Turns a request's credentials (a bearer token, or the session cookie with its CSRF token) into a Caller, or the
// problem that explains why not.

import { findTokenByHash } from '../identity/api-tokens.ts'
import type { KernelTables } from '../identity/tables.ts'
import { findUserById } from '../identity/users.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { Db } from '../store/store.ts'
import { hashApiToken, isWellFormedApiToken } from './api-token.ts'
import { buildCaller, type Caller, type ScopeHolding } from './caller.ts'
import { csrfTokenMatches, sessionCookieOf, validateSession } from './sessions.ts'

/** How often at most a token's `lastUsedAt` is written: once a minute keeps reads from turning into writes. */
const lastUsedResolutionMs = 60_000
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/** What authentication needs of the panel. */
export interface AuthenticationContext {
  readonly db: Db
  readonly secret: string
  readonly scopes: readonly ScopeHolding[]
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
  if (!isWellFormedApiToken(token)) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const record = await findTokenByHash(context.db, hashApiToken(token))
  if (!record || record.revoked) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const now = Date.now()
  if (Date.parse(record.expiresAt) <= now) throw unauthorized(kernelProblems.token_expired, 'invalid_token')
  const user = await findUserById(context.db, record.userId)
  if (!user) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  if (!record.lastUsedAt || now - Date.parse(record.lastUsedAt) > lastUsedResolutionMs) {
    await context.db
      .withTables<KernelTables>()
      .updateTable('api_tokens')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('id', '=', record.id)
      .execute()
  }
  const callerToken = {
    id: record.id,
    scopes: record.scopes,
    customerId: record.customerId,
    expiresAt: record.expiresAt,
  }
  return buildCaller(context.db, user, { token: callerToken }, context.scopes)
}

/** The panel's origin as the browser sees it: behind a TLS-terminating proxy the scheme comes from X-Forwarded-Proto. */
function originOf(request: Request): string {
  const url = new URL(request.url)
  const forwarded = request.headers.get('x-forwarded-proto')
  return `${forwarded === 'https' || forwarded === 'http' ? forwarded : url.protocol.slice(0, -1)}://${url.host}`
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
