// Turns a request's credentials (a bearer token, or the session cookie with its CSRF token) into a Caller, or the
// problem that explains why not.

import { toApiToken } from '../identity/api-tokens.ts'
import type { ApiTokensTable, IdentityTables } from '../identity/identity-tables.ts'
import { findUserById } from '../identity/users.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { isPostgres } from '../store/engine.ts'
import type { Db } from '../store/store.ts'
import { apiTokens } from './api-token.ts'
import { buildCaller, type Caller, type ScopeHolding } from './caller.ts'
import { csrfTokenMatches, sessionCookieOf, validateSession } from './sessions.ts'
import { type TokenCallers, type TokenRead, tokenCallers } from './token-callers.ts'

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

/** Whether `lastUsedAt` is due to be written: at most once a minute, since reads must not turn into writes. */
function isUseDue(row: ApiTokensTable, now: number): boolean {
  return !row.last_used_at || now - Date.parse(row.last_used_at) > lastUsedResolutionMs
}

/**
 * The caller of a token. Most requests come from a token whose caller is kept and whose use was noted within the
 * minute: on SQLite that is answered at once, one statement and no promise.
 */
function callerOfToken(token: string, context: AuthenticationContext): Caller | Promise<Caller> {
  if (!apiTokens.isWellFormed(token)) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  const callers = tokenCallersOf(context)
  const tokenHash = apiTokens.hash(token)
  // The token is read on every request, so revocation and expiry take effect at once, in any process.
  const read = callers.readNow(tokenHash)
  if (read === null) return callers.read(tokenHash).then((later) => callerOfTokenRow(later, context))
  return callerOfTokenRow(read, context)
}

/**
 * The caller of a token row as read (with its stamp): the kept one (at once, unless its use is due to be noted),
 * or one made afresh.
 */
function callerOfTokenRow(read: TokenRead, context: AuthenticationContext): Caller | Promise<Caller> {
  const now = Date.now()
  const { row, stamp } = read
  if (!row || row.revoked_at !== null) throw unauthorized(kernelProblems.invalid_token, 'invalid_token')
  if (Date.parse(row.expires_at) <= now) throw unauthorized(kernelProblems.token_expired, 'invalid_token')
  // A kept caller was made while its user was enabled; disabling the user writes `users`, which ends it.
  const kept = tokenCallersOf(context).get(row, stamp)
  if (!kept) return freshCallerOfToken(row, stamp, now, context)
  return isUseDue(row, now) ? noteUse(row, now, context).then(() => kept) : kept
}

/** Makes the caller of a token row afresh, and keeps it under `stamp`. */
async function freshCallerOfToken(
  row: ApiTokensTable,
  stamp: string | null,
  now: number,
  context: AuthenticationContext,
): Promise<Caller> {
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
  tokenCallersOf(context).keep(row, stamp, caller)
  return caller
}

/** Thrown by {@link GuessedCaller.confirm} when the request's caller is not the one guessed: authenticate afresh. */
export class CallerChanged extends Error {
  constructor() {
    super('The caller guessed for this token changed since it was kept')
  }
}

/** A caller guessed for a request before anything is read, and the read that confirms it. */
export interface GuessedCaller {
  readonly caller: Caller
  /**
   * Reads the token as {@link authenticate} would. Resolves when the request's caller is the one guessed; rejects
   * with the request's refusal (401), or with {@link CallerChanged} when its caller is another.
   */
  confirm(): Promise<void>
}

/**
 * The caller of a request's bearer token as last kept, guessed without reading the store, where reading costs a
 * round trip (PostgreSQL); null without a kept caller. What the guess is used for must wait for `confirm()` before
 * anything of it leaves the process: the pipeline runs a list's read beside the confirming read, so a request whose
 * caller is kept takes one round trip instead of three in a row.
 */
export function guessCaller(request: Request, context: AuthenticationContext): GuessedCaller | null {
  if (!isPostgres(context.db)) return null
  const token = bearerTokenOf(request)
  if (!token || !apiTokens.isWellFormed(token)) return null
  const callers = tokenCallersOf(context)
  const tokenHash = apiTokens.hash(token)
  const caller = callers.peek(tokenHash)
  if (!caller) return null
  return {
    caller,
    async confirm() {
      const confirmed = await callerOfTokenRow(await callers.read(tokenHash), context)
      if (confirmed !== caller) throw new CallerChanged()
    },
  }
}

/** Records when a token was last used, at most once a minute: reads must not turn into writes. */
async function noteUse(row: ApiTokensTable, now: number, context: AuthenticationContext): Promise<void> {
  if (!isUseDue(row, now)) return
  await context.db
    .withTables<IdentityTables>()
    .updateTable('api_tokens')
    .set({ last_used_at: new Date(now).toISOString() })
    .where('id', '=', row.id)
    .execute()
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
export function authenticate(request: Request, context: AuthenticationContext): Caller | Promise<Caller> {
  const token = bearerTokenOf(request)
  if (token !== null) return callerOfToken(token, context)
  const cookie = sessionCookieOf(request)
  if (cookie) return callerOfSession(cookie, request, context)
  throw unauthorized(kernelProblems.unauthenticated)
}

/** Whose access a long-running action (a shell session) keeps checking: the user, and the token they used. */
export interface StoredCredential {
  readonly userId: string
  /** The API token the action was asked for with; null for a browser session. */
  readonly tokenId: string | null
}

/**
 * The caller of a credential recorded earlier, made afresh as {@link authenticate} makes it, or null where it no
 * longer authenticates: the token revoked or expired, the user gone or disabled. For something that outlives its
 * request (a shell session): its plugin asks again from time to time, and ends it once this is null or the caller
 * lost the scope it needs.
 */
export async function callerOfStoredCredential(
  context: Pick<AuthenticationContext, 'db' | 'scopes'>,
  credential: StoredCredential,
): Promise<Caller | null> {
  const user = await findUserById(context.db, credential.userId)
  if (!user || user.disabledAt !== null) return null
  if (credential.tokenId === null)
    return buildCaller(context.db, user, { session: { id: 'stored' } }, context.scopes)
  const row = await context.db
    .withTables<IdentityTables>()
    .selectFrom('api_tokens')
    .selectAll()
    .where('id', '=', credential.tokenId)
    .executeTakeFirst()
  if (!row || row.revoked_at !== null || row.user_id !== user.id || Date.parse(row.expires_at) <= Date.now())
    return null
  const record = toApiToken(row)
  const token = {
    id: record.id,
    scopes: record.scopes,
    customerId: record.customerId,
    expiresAt: record.expiresAt,
  }
  return buildCaller(context.db, user, { token }, context.scopes)
}
