// The caller's own account: who am I and what may I do, and changing one's password.

import { Type as t } from '@sinclair/typebox'
import {
  createSession,
  csrfTokenOf,
  invalidateUserSessions,
  sessionCookie,
  sessionOriginOf,
} from '../../auth/sessions.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { Problem } from '../../problem/problem.ts'
import { brandOfCustomer } from '../../tenancy/tenants.ts'
import { Login, Me } from '../schemas.ts'
import { findUserById, findUserForLogin, hashPassword, setPasswordHash } from '../users.ts'
import { tooManyAttempts } from './auth-routes.ts'
import type { KernelRouteContext } from './kernel-context.ts'

const PasswordBody = t.Object(
  {
    currentPassword: t.String({ minLength: 1, maxLength: 256 }),
    newPassword: t.String({ minLength: 12, maxLength: 256, description: '12 to 256 characters.' }),
  },
  { $id: 'ChangePasswordBody' },
)

/** GET /me and POST /me/password. */
export function meRoutes(context: KernelRouteContext): RouteDefinition[] {
  const { store, secret } = context
  return [
    defineRoute({
      method: 'GET',
      path: '/me',
      operationId: 'getMe',
      summary: 'Who the caller is and what it may do',
      description:
        'The user, the kind of caller, its brand and memberships, the token in use and the effective scopes.',
      authenticated: true,
      // It carries the session's CSRF token: no cache keeps it.
      showsSecret: true,
      responses: { 200: { description: 'The caller.', schema: Me } },
      async handler({ caller }) {
        const user = await findUserById(store.db, caller.user.id)
        const directory = context.tenantDirectory()
        if (!user) throw new Problem(kernelProblems.not_found)
        return {
          user,
          kind: caller.kind,
          brandId: caller.user.brandId,
          memberships: await Promise.all(
            caller.memberships.map(async (membership) => ({
              ...membership,
              customerName: (await directory?.findCustomer(membership.customerId))?.name ?? null,
              brandId: await brandOfCustomer(store.db, membership.customerId),
            })),
          ),
          token: caller.token
            ? {
                id: caller.token.id,
                scopes: caller.token.scopes,
                customerId: caller.token.customerId,
                expiresAt: caller.token.expiresAt,
              }
            : null,
          scopes: [...caller.scopes].sort(),
          session: caller.session ? { csrfToken: csrfTokenOf(caller.session.id, secret) } : null,
        }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/me/password',
      operationId: 'changePassword',
      summary: 'Change the caller’s password',
      description:
        'Ends every session of the user; a caller signed in with a session gets a new one (cookie and CSRF token) in the answer. API tokens stay valid.',
      authenticated: true,
      wildcardOnly: true,
      body: PasswordBody,
      responses: {
        200: {
          description: 'Changed; the new session, if signed in with one.',
          schema: t.Union([Login, t.Null()]),
        },
      },
      problems: [kernelProblems.wildcard_token_required, kernelProblems.too_many_attempts],
      async handler({ body, caller, request, address, audit }) {
        // Guessing the current password through a stolen token or session is throttled like a login.
        const attempt = await context.throttle.attempt(`user:${caller.user.id}`, null)
        if ('refuseForSeconds' in attempt) throw tooManyAttempts(attempt.refuseForSeconds)
        if (attempt.delayMs > 0) await Bun.sleep(attempt.delayMs)
        const found = await findUserForLogin(store.db, caller.user.email)
        if (!found || !(await Bun.password.verify(body.currentPassword, found.passwordHash))) {
          throw new Problem(kernelProblems.validation_failed, {
            detail: 'The current password is wrong.',
            errors: [
              {
                location: 'body.currentPassword',
                message: 'is not the current password',
                code: 'wrong_password',
              },
            ],
          })
        }
        await attempt.succeeded()
        const passwordHash = await hashPassword(body.newPassword)
        const renewed = await store.transaction(async (trx) => {
          await setPasswordHash(trx, caller.user.id, passwordHash)
          await invalidateUserSessions(trx, caller.user.id)
          await audit(trx, {
            action: 'user.changePassword',
            subject: { type: 'user', id: caller.user.id },
            customerId: null,
          })
          return caller.session ? createSession(trx, caller.user.id, sessionOriginOf(request, address)) : null
        })
        if (!renewed) return null
        return new Reply(
          200,
          {
            csrfToken: csrfTokenOf(renewed.session.id, secret),
            expiresAt: renewed.session.expiresAt,
            user: found.user,
          },
          {
            'set-cookie': sessionCookie(request, renewed.token, renewed.session.expiresAt),
            'cache-control': 'no-store',
          },
        )
      },
    }),
  ]
}
