// A site's response headers: read them, or replace the whole list (`GET`/`PUT /sites/{id}/headers`, scopes
// `site:read` and `site:update`), carried to the site's node by its `site.update` job.

import { defineRoute, orNotFound, type PluginContext, t, unchanged } from '../../../core/index.ts'
import { siteDirectory, siteScopes, siteServingChanges, siteServingProblems } from '../../sites/contract.ts'
import { SiteHeader, SiteHeaders } from '../contract.ts'
import { redirectProblems as problems } from '../problems.ts'
import { headersOf, saveHeaders } from '../repository.ts'
import { checkHeaders } from '../rules.ts'

/** How many headers a site may add. */
export const maxSiteHeaders = 32

const PutSiteHeaders = t.Object(
  {
    headers: t.Array(SiteHeader, {
      maxItems: maxSiteHeaders,
      description: `The site’s headers, all of them (at most ${maxSiteHeaders}); an empty list removes them.`,
    }),
  },
  { $id: 'PutSiteHeaders' },
)

/** The routes of `/sites/{id}/headers`. */
export function headerRoutes(context: PluginContext) {
  const sites = context.use(siteDirectory)
  const serving = context.use(siteServingChanges)
  const read = defineRoute({
    method: 'GET',
    path: '/sites/:id/headers',
    operationId: 'getSiteHeaders',
    summary: 'Read a site’s response headers',
    scope: siteScopes.read,
    params: { id: 'site' },
    responses: { 200: SiteHeaders },
    async handler({ db, view, params }) {
      return headersOf(db, orNotFound(await sites.find(db, view, params.id)))
    },
  })
  const put = defineRoute({
    method: 'PUT',
    path: '/sites/:id/headers',
    operationId: 'putSiteHeaders',
    summary: 'Replace a site’s response headers',
    description:
      'The whole list, checked (each refusal at `body.headers.N.name` or `.value`), then carried to the site’s node by its `site.update` job (the site’s `jobId`). Headers the node or the application sets, and hop-by-hop ones, are refused (`reserved_header`).',
    scope: siteScopes.update,
    params: { id: 'site' },
    body: PutSiteHeaders,
    responses: { 200: SiteHeaders },
    problems: [
      ...[problems.invalid_header_name, problems.reserved_header, problems.duplicate_header],
      ...[problems.invalid_header_value, ...siteServingProblems],
    ],
    change: {
      action: 'site_headers.update',
      event: 'site_headers.updated',
      subject: (headers) => ({ type: 'site', id: String(headers.siteId) }),
      details: (headers) => ({ names: (headers.headers as { name: string }[]).map((header) => header.name) }),
    },
    async handler({ trx, view, params, body }) {
      const site = orNotFound(await sites.find(trx, view, params.id))
      checkHeaders(body.headers)
      const current = await headersOf(trx, site)
      if (JSON.stringify(current.headers) === JSON.stringify(body.headers)) return unchanged(current)
      const saved = await saveHeaders(trx, site, body.headers)
      await serving.apply(trx, site)
      return saved
    },
  })
  return [read, put]
}
