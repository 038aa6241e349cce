// A site's WordPress users: listed a page at a time, created with a password the panel generates, and a password
// reset (generated, shown once, every session of the user ended). Passwords are never kept, logged or audited.

import {
  defineRoute,
  idPattern,
  kernelProblems,
  type PluginContext,
  Problem,
  Reply,
  t,
} from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import { generateAdminPassword } from '../admin-password.ts'
import { wordpressProblems as problems } from '../problems.ts'
import type { WordPressUser as UserAnswer } from '../protocol.ts'
import { WordPressUserPage, WordPressUserWithPassword } from '../schemas.ts'
import { operationProblems, siteWordPressOf } from '../site-wordpress.ts'

/** WordPress's own roles; a site may have more (a plugin's), which the node checks. */
const roles = ['administrator', 'editor', 'author', 'contributor', 'subscriber']

export function userRoutes(context: PluginContext) {
  const wordpressOf = siteWordPressOf(context)
  /** Cursors are sealed (opaque, tamper-evident) and bound to the site. */
  const cursorOf = (siteId: string, after: number) =>
    context.secrets.seal(JSON.stringify({ s: siteId, a: after }))
  const afterOf = (siteId: string, cursor: string | undefined): number => {
    if (cursor === undefined) return 0
    try {
      const opened = JSON.parse(context.secrets.open(cursor)) as { s: string; a: number }
      if (opened.s === siteId && Number.isSafeInteger(opened.a)) return opened.a
    } catch {}
    throw new Problem(kernelProblems.invalid_cursor)
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/wordpress/users',
      operationId: 'listWordPressUsers',
      summary: 'List a WordPress site’s users',
      description: 'By WordPress user id, a page at a time (audited as `wordpress_user.list`).',
      scope: siteScopes.shell,
      params: { id: 'site' },
      query: t.Object({
        cursor: t.Optional(t.String({ maxLength: 500, description: 'The `nextCursor` of the page before.' })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: 'Default 20.' })),
      }),
      responses: { 200: WordPressUserPage },
      problems: [...operationProblems, kernelProblems.invalid_cursor],
      async handler({ params, query, view, audit, request }) {
        const after = afterOf(params.id, query.cursor)
        const limit = query.limit ?? 20
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        const users = await wordpress.run<UserAnswer[]>(
          { op: 'users.list', after, limit: limit + 1 },
          { action: 'wordpress_user.list' },
        )
        const items = users.slice(0, limit)
        const last = items.at(-1)
        return { items, nextCursor: users.length > limit && last ? cursorOf(params.id, last.id) : null }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/wordpress/users',
      operationId: 'createWordPressUser',
      summary: 'Create a WordPress user',
      description:
        'With a password the panel generates, shown this once in the answer (never kept, logged or audited). Not idempotent: a repeat answers 409 `wordpress_user_exists`, and no password is kept for a replay.',
      scope: siteScopes.shell,
      params: { id: 'site' },
      body: t.Object({
        login: t.String({
          minLength: 1,
          maxLength: 60,
          pattern: '^[A-Za-z0-9_.@-]+$',
          description: 'The login: letters, digits and `_ . @ -` (WordPress’s strict set).',
        }),
        email: t.String({ format: 'email', maxLength: 100 }),
        role: t.String({
          pattern: '^[a-z0-9_-]{1,60}$',
          description: `One of the site’s roles: WordPress’s own are ${roles.map((role) => `\`${role}\``).join(', ')}; a plugin may add others.`,
          examples: ['editor'],
        }),
        displayName: t.Optional(
          t.String({ minLength: 1, maxLength: 250, description: 'Default the login.' }),
        ),
      }),
      idempotent: false,
      showsSecret: true,
      responses: { 201: WordPressUserWithPassword },
      problems: [...operationProblems, problems.wordpress_user_exists, problems.unknown_wordpress_role],
      async handler({ params, body, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        const password = generateAdminPassword()
        const user = await wordpress.run<UserAnswer>(
          { op: 'users.create', ...body, password },
          {
            action: 'wordpress_user.create',
            details: (answer: UserAnswer) => ({ userId: answer.id, login: answer.login, role: body.role }),
          },
        )
        return Reply.created({ ...user, password }, `/sites/${params.id}/wordpress/users/${user.id}`)
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/wordpress/users/:userId/password',
      operationId: 'resetWordPressUserPassword',
      summary: 'Reset a WordPress user’s password',
      description:
        'Sets a password the panel generates, shown this once in the answer (never kept, logged or audited), and ends every session the user had.',
      scope: siteScopes.shell,
      params: t.Object({
        id: t.String({ pattern: idPattern('site'), description: 'The site, `site_…`.' }),
        userId: t.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'WordPress’s user id.' }),
      }),
      showsSecret: true,
      responses: { 200: WordPressUserWithPassword },
      problems: [...operationProblems, problems.wordpress_user_not_found],
      async handler({ params, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        const password = generateAdminPassword()
        const user = await wordpress.run<UserAnswer>(
          { op: 'users.password', userId: Number(params.userId), password },
          {
            action: 'wordpress_user.reset_password',
            // Who it was, as WordPress answered after the reset: never the password.
            details: (answer: UserAnswer) => ({
              userId: answer.id,
              login: answer.login,
              role: answer.roles[0] ?? null,
            }),
          },
        )
        return { ...user, password }
      },
    }),
  ]
}
