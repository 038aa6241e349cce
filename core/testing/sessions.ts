// Signing in as the panel's own pages do: the session cookie, its CSRF token and the same-origin headers of a change.

import { expect } from 'bun:test'
import type { User } from '../identity/users.ts'
import type { TestPanel } from './create-test-panel.ts'
import { testPassword } from './users.ts'

/** The answer of POST /api/v1/auth/login (and of a password change made with a session). */
export interface LoginBody {
  readonly csrfToken: string
  readonly expiresAt: string
  readonly user: User
}

/** A signed-in browser: its session cookie (`name=value`) and the CSRF token that goes with it. */
export interface Session {
  readonly cookie: string
  readonly csrfToken: string
}

/** The `name=value` part of a Set-Cookie header, asserted to be the session cookie. */
export function cookieOf(response: Response): string {
  const header = response.headers.get('set-cookie') ?? ''
  expect(header).toStartWith('plinth_session=')
  return header.split(';')[0] ?? ''
}

/** The headers of a change made with a session cookie from the panel's own pages. */
export function sameOrigin(session: Session, extra: Record<string, string> = {}): Record<string, string> {
  return {
    cookie: session.cookie,
    'x-csrf-token': session.csrfToken,
    'sec-fetch-site': 'same-origin',
    ...extra,
  }
}

/** Sends POST /api/v1/auth/login with this e-mail and password, and answers the response as it is. */
export function login(tp: TestPanel, email: string, secret: string): Promise<Response> {
  return tp.request('POST', '/api/v1/auth/login', { body: { email, password: secret } })
}

/** Signs in (asserting 200) with {@link testPassword} unless told, and answers the new session. */
export async function signIn(tp: TestPanel, email: string, secret = testPassword): Promise<Session> {
  const response = await login(tp, email, secret)
  expect(response.status).toBe(200)
  const body = (await response.json()) as LoginBody
  return { cookie: cookieOf(response), csrfToken: body.csrfToken }
}
