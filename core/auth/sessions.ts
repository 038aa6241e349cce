// Sessions for the web interface, on Lucia's current design: `<id>.<secret>`, only a hash of the secret stored,
// constant-time comparison, sliding expiry, and a CSRF token bound to the session by an HMAC.

import { hmac } from '@oslojs/crypto/hmac'
import { SHA256, sha256 } from '@oslojs/crypto/sha2'
import { constantTimeEqual } from '@oslojs/crypto/subtle'
import {
  encodeBase32LowerCaseNoPadding,
  encodeBase64urlNoPadding,
  encodeHexLowerCase,
} from '@oslojs/encoding'
import type { IdentityTables } from '../identity/identity-tables.ts'
import type { Db } from '../store/store.ts'

/** Name of the session cookie. */
export const sessionCookieName = 'plinth_session'
/** A session lives this long after its last renewal. */
export const sessionLifetimeMs = 30 * 86_400_000
/** A session used when less than this is left is renewed (sliding expiry). */
const renewWithinMs = 15 * 86_400_000

const encoder = new TextEncoder()

/** 120 bits of randomness as 24 lower-case base32 characters, Lucia's `generateSecureRandomString`. */
function randomString(): string {
  return encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(15)))
}

function hashSecret(secret: string): string {
  return encodeHexLowerCase(sha256(encoder.encode(secret)))
}

/** A session as validated. */
export interface Session {
  readonly id: string
  readonly userId: string
  readonly expiresAt: string
}

/** What a session id looks like: 24 lower-case base32 characters (the cookie's first half). */
export const sessionIdPattern = '^[a-z2-7]{24}$'

/** Where a session was created from, kept (truncated) so its user can tell their sessions apart. */
export interface SessionOrigin {
  /** The client address as the host saw it, or null when unknown. */
  readonly address: string | null
  /** The `User-Agent` header, or null when none was sent. */
  readonly userAgent: string | null
}

/** Longest address and user agent kept with a session. */
const maxAddressLength = 64
const maxUserAgentLength = 256

/** `text` cut to `max` characters, never splitting a surrogate pair; null for nothing. */
function truncated(text: string | null, max: number): string | null {
  if (!text) return null
  if (text.length <= max) return text
  const cut = text.slice(0, max)
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut
}

/** The origin of a session made by `request`, from `address` (as the host saw it). */
export function sessionOriginOf(request: Request, address: string | null): SessionOrigin {
  return { address, userAgent: request.headers.get('user-agent') }
}

/**
 * Creates a session for `userId` (from `origin`, when known); returns it with the cookie value (`<id>.<secret>`),
 * never stored whole.
 */
export async function createSession(
  db: Db,
  userId: string,
  origin: SessionOrigin = { address: null, userAgent: null },
): Promise<{ session: Session; token: string }> {
  const id = randomString()
  const secret = randomString()
  const now = Date.now()
  const session = { id, userId, expiresAt: new Date(now + sessionLifetimeMs).toISOString() }
  await db
    .withTables<IdentityTables>()
    .insertInto('sessions')
    .values({
      id,
      secret_hash: hashSecret(secret),
      user_id: userId,
      created_at: new Date(now).toISOString(),
      expires_at: session.expiresAt,
      created_address: truncated(origin.address, maxAddressLength),
      user_agent: truncated(origin.userAgent, maxUserAgentLength),
    })
    .execute()
  return { session, token: `${id}.${secret}` }
}

/** The session a cookie value names, renewed when half used, or null when it is malformed, unknown or expired. */
export async function validateSession(db: Db, token: string): Promise<Session | null> {
  const [id, secret, ...rest] = token.split('.')
  if (!id || !secret || rest.length > 0 || id.length > 64 || secret.length > 64) return null
  const sessions = db.withTables<IdentityTables>()
  const row = await sessions.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) return null
  const expected = encoder.encode(row.secret_hash)
  if (!constantTimeEqual(encoder.encode(hashSecret(secret)), expected)) return null
  const now = Date.now()
  const expires = Date.parse(row.expires_at)
  if (expires <= now) {
    await sessions.deleteFrom('sessions').where('id', '=', id).execute()
    return null
  }
  if (expires - now < renewWithinMs) {
    const renewed = new Date(now + sessionLifetimeMs).toISOString()
    await sessions.updateTable('sessions').set({ expires_at: renewed }).where('id', '=', id).execute()
    return { id, userId: row.user_id, expiresAt: renewed }
  }
  return { id, userId: row.user_id, expiresAt: row.expires_at }
}

/** Ends one session (logout). */
export async function invalidateSession(db: Db, id: string): Promise<void> {
  await db.withTables<IdentityTables>().deleteFrom('sessions').where('id', '=', id).execute()
}

/** Ends every session of a user (password change, disabling the user). */
export async function invalidateUserSessions(db: Db, userId: string): Promise<void> {
  await db.withTables<IdentityTables>().deleteFrom('sessions').where('user_id', '=', userId).execute()
}

/** A user's sessions that have not expired, as a query for `page()`: keyed by `id` (random, so in no time order). */
export function userSessionsQuery(db: Db, userId: string) {
  return db
    .withTables<IdentityTables>()
    .selectFrom('sessions')
    .select(['id', 'user_id', 'created_at', 'expires_at', 'created_address', 'user_agent'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', new Date().toISOString())
}

/** Ends one of a user's sessions; false when the user has no such live session. */
export async function endUserSession(db: Db, userId: string, id: string): Promise<boolean> {
  const found = await userSessionsQuery(db, userId).where('id', '=', id).executeTakeFirst()
  if (!found) return false
  await invalidateSession(db, id)
  return true
}

/** The CSRF token of a session: an HMAC of its id under the panel secret, so it cannot be made without both. */
export function csrfTokenOf(sessionId: string, panelSecret: string): string {
  return encodeBase64urlNoPadding(
    hmac(SHA256, encoder.encode(panelSecret), encoder.encode(`csrf:${sessionId}`)),
  )
}

/** Whether `presented` is the CSRF token of the session, compared in constant time. */
export function csrfTokenMatches(presented: string, sessionId: string, panelSecret: string): boolean {
  const expected = encoder.encode(csrfTokenOf(sessionId, panelSecret))
  const given = encoder.encode(presented)
  return given.length === expected.length && constantTimeEqual(given, expected)
}

/** The session cookie's value from a Cookie header, or null. */
export function sessionCookieOf(request: Request): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === sessionCookieName) return value.join('=')
  }
  return null
}

/**
 * Whether the request reached us over HTTPS. Only the URL counts: a host behind a trusted TLS-terminating proxy
 * puts the proxy's scheme there (hosts/bun/serve.ts with TRUST_PROXY); a header anyone can send is never read.
 */
function isHttps(request: Request): boolean {
  return request.url.startsWith('https:')
}

/** `Set-Cookie` for a new session: HttpOnly, SameSite=Lax, Secure over HTTPS. */
export function sessionCookie(request: Request, token: string, expiresAt: string): string {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000))
  return `${sessionCookieName}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${isHttps(request) ? '; Secure' : ''}`
}

/** `Set-Cookie` that removes the session cookie. */
export function clearedSessionCookie(request: Request): string {
  return `${sessionCookieName}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${isHttps(request) ? '; Secure' : ''}`
}
