// The caller's own sessions: which browsers are signed in as them, from where, and ending one.

import { Type as t } from '@sinclair/typebox'
import { sql } from 'kysely'
import {
  clearedSessionCookie,
  endUserSession,
  sessionIdPattern,
  userSessionsQuery,
} from '../../auth/sessions.ts'
import { defineRoute, Reply, type RouteDefinition } from '../../plugin/route.ts'
import { kernelProblems } from '../../problem/kernel-problems.ts'
import { Problem } from '../../problem/problem.ts'
import type { SessionsTable } from '../identity-tables.ts'
import { Session } from '../schemas.ts'
import type { KernelRouteContext } from './kernel-context.ts'

/** Session ids are the random first half of the cookie, not type-prefixed ids. */
const SessionParams = t.Object({
  id: t.String({
    pattern: sessionIdPattern,
    description: 'The session’s id: 24 lower-case base32 characters.',
  }),
})

/** A session row as listed, with whether it is the caller's own (0 or 1 on SQLite). */
type SessionRow = Omit<SessionsTable, 'secret_hash'> & { readonly current: unknown }

/** GET /sessions and DELETE /sessions/{id}. */
export function sessionRoutes(context: KernelRouteContext): RouteDefinition[] {
  const { store } = context
  return [
    defineRoute({
      method: 'GET',
      path: '/sessions',
      operationId: 'listSessions',
      summary: 'List the caller’s own sessions',
      description:
        'The signed-in browsers of the caller’s account that have not expired, with when and from where (address and user agent) each was created; `current` marks the one of this request. Ordered by id, which is random: sort by `createdAt` to show them. Open to a session or to a token carrying `*`.',
      authenticated: true,
      wildcardOnly: true,
      problems: [kernelProblems.wildcard_token_required],
      list: {
        item: Session,
        toItem: (row: SessionRow) => ({
          id: row.id,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          address: row.created_address,
          userAgent: row.user_agent,
          current: Boolean(row.current),
        }),
      },
      handler: ({ caller }) =>
        userSessionsQuery(store.db, caller.user.id).select(
          sql<boolean>`(sessions.id = ${caller.session?.id ?? ''})`.as('current'),
        ),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sessions/:id',
      operationId: 'deleteSession',
      summary: 'End one of the caller’s sessions',
      description:
        'Signs that browser out at once (its next request is 401 `session_expired`). Another user’s session, or one that has ended, is 404. Ending the session of this request also clears its cookie. Open to a session or to a token carrying `*`.',
      authenticated: true,
      wildcardOnly: true,
      params: SessionParams,
      responses: { 204: { description: 'Ended.' } },
      problems: [kernelProblems.wildcard_token_required],
      async handler({ params, caller, request, audit }) {
        const ended = await store.transaction(async (trx) => {
          const done = await endUserSession(trx, caller.user.id, params.id)
          if (done)
            await audit(trx, {
              action: 'session.delete',
              subject: { type: 'user', id: caller.user.id },
              customerId: null,
              details: { sessionId: params.id },
            })
          return done
        })
        if (!ended) throw new Problem(kernelProblems.not_found)
        const current = caller.session?.id === params.id
        return new Reply(204, undefined, current ? { 'set-cookie': clearedSessionCookie(request) } : {})
      },
    }),
  ]
}
