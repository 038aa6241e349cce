// Signing in and out of the web interface: a session cookie, and the CSRF token every change must echo.

import { Type as t } from '@sinclair/typebox'
import { writeAudit } from '../../audit/audit-log.ts'
import {
  clearedSessionCookie,
  createSession,
  csrfTokenOf,
  invalidateSession,
  sessionCookie,
  sessionOriginOf,
} from '../../auth/sessions.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { Problem } from '../../problem/problem.ts'
import type { IdentityTables } from '../identity-tables.ts'
import { Login } from '../schemas.ts'
import { findUserForLogin } from '../users.ts'
import type { KernelRouteContext } from './kernel-context.ts'

const LoginBody = t.Object(
  {
    email: t.String({ minLength: 3, maxLength: 320, description: 'The user’s e-mail address.' }),
    password: t.String({ minLength: 1, maxLength: 256 }),
  },
  { $id: 'LoginBody' },
)

// Verifying against a real argon2id hash when the user does not exist keeps both answers equally slow.
const decoyHash = Bun.password.hash('decoy password that never matches', { algorithm: 'argon2id' })

/** Every 401 says how to authenticate. */
export const bearerChallenge = { 'www-authenticate': 'Bearer realm="plinth"' }

/** 401 `account_disabled`: the user was disabled by staff. */
export function accountDisabled(): Problem {
  return new Problem(kernelProblems.account_disabled, { headers: bearerChallenge })
}

/** 429 with how long to wait. */
export function tooManyAttempts(seconds: number): Problem {
  return new Problem(kernelProblems.too_many_attempts, {
    headers: { 'retry-after': String(seconds) },
    extensions: { retryAfter: seconds },
  })
}

/** POST /auth/login and POST /auth/logout. */
export function authRoutes(context: KernelRouteContext): RouteDefinition[] {
  const { store, secret, throttle } = context
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      operationId: 'login',
      strictRateLimit: true,
      summary: 'Sign in with e-mail and password',
      description:
        'Sets the `plinth_session` cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) and returns the CSRF token to send as `X-CSRF-Token` with every change made with it. Repeated failures are slowed, then refused with 429. A disabled user is refused with 401 `account_disabled`, only once the password is right (a wrong one is `invalid_credentials` as for anyone), and the attempt counts as a failure.',
      public: true,
      body: LoginBody,
      responses: {
        200: { description: 'Signed in.', schema: Login, headers: { 'Set-Cookie': 'The session cookie.' } },
      },
      problems: [
        kernelProblems.invalid_credentials,
        kernelProblems.account_disabled,
        kernelProblems.too_many_attempts,
      ],
      async handler({ body, request, address, requestId }) {
        const email = body.email.trim().toLowerCase()
        const attempt = await throttle.attempt(email, address)
        if ('refuseForSeconds' in attempt) throw tooManyAttempts(attempt.refuseForSeconds)
        if (attempt.delayMs > 0) await Bun.sleep(attempt.delayMs)
        const found = await findUserForLogin(store.db, email)
        const valid = await Bun.password.verify(body.password, found?.passwordHash ?? (await decoyHash))
        if (!found || !valid)
          throw new Problem(kernelProblems.invalid_credentials, { headers: bearerChallenge })
        // Said only to whoever knows the password, after the same work as any other answer; the attempt stays
        // counted as a failure, so a disabled account is no faster an oracle for guessing than an enabled one.
        if (found.user.disabledAt !== null) throw accountDisabled()
        await attempt.succeeded()
        const { session, token } = await store.transaction(async (trx) => {
          // Read again in the transaction: staff disabling the user meanwhile leave no session behind.
          const current = await trx
            .withTables<IdentityTables>()
            .selectFrom('users')
            .select('disabled_at')
            .where('id', '=', found.user.id)
            .executeTakeFirst()
          if (!current) throw new Problem(kernelProblems.invalid_credentials, { headers: bearerChallenge })
          if (current.disabled_at !== null) throw accountDisabled()
          const created = await createSession(trx, found.user.id, sessionOriginOf(request, address))
          const actor = { userId: found.user.id, tokenId: null, requestId, sourceAddress: address }
          await writeAudit(trx, actor, {
            action: 'session.create',
            subject: { type: 'user', id: found.user.id },
            customerId: null,
          })
          return created
        })
        return new Reply(
          200,
          { csrfToken: csrfTokenOf(session.id, secret), expiresAt: session.expiresAt, user: found.user },
          { 'set-cookie': sessionCookie(request, token, session.expiresAt), 'cache-control': 'no-store' },
        )
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      operationId: 'logout',
      summary: 'End the current session',
      description:
        'Ends the session the cookie names and clears the cookie. With a bearer token it changes nothing.',
      authenticated: true,
      responses: { 204: { description: 'Signed out.' } },
      async handler({ caller, request, audit }) {
        const { session } = caller
        if (session) {
          await store.transaction(async (trx) => {
            await invalidateSession(trx, session.id)
            await audit(trx, {
              action: 'session.delete',
              subject: { type: 'user', id: caller.user.id },
              customerId: null,
            })
          })
        }
        return new Reply(204, undefined, session ? { 'set-cookie': clearedSessionCookie(request) } : {})
      },
    }),
  ]
}
