// A site's WordPress as a whole: its version and maintenance state, maintenance mode on and off, and replacing the
// site's old address in its database after a domain change.

import { defineRoute, type PluginContext, t } from '../../../core/index.ts'
import { siteScopes } from '../../sites/contract.ts'
import type { WordPressCore as CoreAnswer, SearchReplaceResult as SearchReplaceAnswer } from '../protocol.ts'
import { siteUrlPattern } from '../protocol.ts'
import { SearchReplaceResult, WordPressCore } from '../schemas.ts'
import { operationProblems, siteWordPressOf } from '../site-wordpress.ts'

const Url = (description: string) =>
  t.String({ pattern: siteUrlPattern, maxLength: 2000, description, examples: ['http://old.example.com'] })

export function coreRoutes(context: PluginContext) {
  const wordpressOf = siteWordPressOf(context)
  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/wordpress',
      operationId: 'getWordPress',
      summary: 'Read a WordPress site’s version and maintenance state',
      description:
        'Runs on the site’s node, as the site’s Unix user, in the site’s own WordPress. Like every WordPress operation it is audited (`wordpress.read`).',
      scope: siteScopes.shell,
      params: { id: 'site' },
      responses: { 200: WordPressCore },
      problems: operationProblems,
      async handler({ params, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        return wordpress.run<CoreAnswer>({ op: 'core' }, { action: 'wordpress.read' })
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/wordpress/maintenance',
      operationId: 'setWordPressMaintenance',
      summary: 'Switch WordPress’s maintenance mode on or off',
      description:
        'On: WordPress answers every visitor 503 with its “Briefly unavailable for scheduled maintenance” page (or the site’s `wp-content/maintenance.php`) until it is switched off; the panel’s `.maintenance` file in `/htdocs` does not expire after ten minutes as WordPress’s own does. A WordPress update that finishes removes it.',
      scope: siteScopes.shell,
      params: { id: 'site' },
      body: t.Object({ enabled: t.Boolean({ description: 'true: on; false: off.' }) }),
      responses: { 200: WordPressCore },
      problems: operationProblems,
      async handler({ params, body, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        return wordpress.run<CoreAnswer>(
          { op: 'maintenance', enabled: body.enabled },
          { action: 'wordpress.maintenance', details: { enabled: body.enabled } },
        )
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/wordpress/search-replace',
      operationId: 'searchReplaceWordPress',
      summary: 'Replace the site’s old address in its WordPress database',
      description:
        'After a domain change (WordPress’s `home` and `siteurl` follow the site’s domain already), replaces `from` by `to` in every text column of the site’s WordPress tables, inside PHP-serialized values too (re-serialized with their new lengths), except posts’ `guid`. `dryRun` counts without changing anything. Give whole origins (`http://old.example.com`): `http://old.example` would also match `http://old.example.com`.',
      scope: siteScopes.shell,
      params: { id: 'site' },
      body: t.Object({
        from: Url('The old address: `http://` or `https://`, a host, optionally a port and a path.'),
        to: t.Optional(
          Url('The new address. Default the site’s address as WordPress knows it (`http://<domain>`).'),
        ),
        dryRun: t.Optional(t.Boolean({ description: 'Count only, change nothing. Default false.' })),
      }),
      responses: { 200: SearchReplaceResult },
      problems: operationProblems,
      async handler({ params, body, view, audit, request }) {
        const wordpress = await wordpressOf(view, params.id, audit, request.signal)
        const to = body.to ?? `http://${wordpress.site.domain}`
        const dryRun = body.dryRun ?? false
        return wordpress.run<SearchReplaceAnswer>(
          { op: 'search-replace', from: body.from, to, dryRun },
          {
            action: 'wordpress.search_replace',
            details: (answer: SearchReplaceAnswer) => ({
              from: body.from,
              to,
              dryRun,
              replacements: answer.replacements,
            }),
          },
        )
      },
    }),
  ]
}
