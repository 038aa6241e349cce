// The redirects plugin: a site's redirects (`/sites/{id}/redirects`) and response headers (`/sites/{id}/headers`),
// kept in its own tables and given to the site's node as `serving.redirects` and `serving.headers`, which the node
// checks again and renders into the site's nginx server block (docs/redirects.md).

import { definePlugin, resourceEvents } from '../../core/index.ts'
import { siteRecordParts } from '../backups/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { siteDependents, siteServingParts } from '../sites/contract.ts'
import { Redirect, SiteHeaders } from './contract.ts'
import { redirectMigrations } from './migrations.ts'
import { redirectProblems } from './problems.ts'
import { headersOf, redirectsOf, removeAll } from './repository.ts'
import { headerRoutes } from './routes/headers.ts'
import { redirectRoutes } from './routes/redirects.ts'
import { redirectsServingPart } from './serving-part.ts'

/** Options of {@link redirectsPlugin}. */
export interface RedirectsOptions {
  /** How many redirects a site may have (`redirect_limit_reached` past it). Default 100, at most 500. */
  readonly maxRedirectsPerSite?: number
}

/** Redirects and response headers of sites, with the site scopes (`site:read`, `site:update`). */
export const redirectsPlugin = (options: RedirectsOptions = {}) => {
  const maxPerSite = Math.min(options.maxRedirectsPerSite ?? 100, 500)
  return definePlugin({
    name: 'redirects',
    version: '0.1.0',
    description: 'Redirects and response headers of sites, served by their nodes’ nginx.',
    requires: ['customers', 'sites'],
    enhances: ['console', 'backups'],
    events: [
      ...resourceEvents('redirect', Redirect, 'A site’s redirect'),
      ...resourceEvents('site_headers', SiteHeaders, 'A site’s response headers list', ['updated']),
    ],
    problems: redirectProblems,
    migrations: redirectMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.extensionPoint(siteServingParts).add(redirectsServingPart)
      // A backup's record of the site says its redirects and headers, when the installation has backups.
      context.extensionPoint(siteRecordParts).add({
        name: 'redirects',
        async read(db, siteId) {
          const redirects = (await redirectsOf(db, siteId)).map(({ from, match, to, code }) => ({
            from,
            match,
            to,
            code,
          }))
          const { headers } = await headersOf(db, { id: siteId, customerId: '' })
          return redirects.length === 0 && headers.length === 0 ? null : { redirects, headers }
        },
      })
      // A deleted site's redirects and headers went with its server block; the panel forgets them in its job.
      context.extensionPoint(siteDependents).add({
        name: 'redirects',
        remove: (run, site) => run.transaction((trx) => removeAll(trx, 'siteId', site.id)).then(() => {}),
      })
      context.extensionPoint(customerDependents).add({
        name: 'redirects',
        remove: (run, customer) =>
          run.transaction((trx) => removeAll(trx, 'customerId', customer.id)).then(() => {}),
      })
    },
    routes: (context) => [...redirectRoutes(context, { maxPerSite }), ...headerRoutes(context)],
    capabilities: () => ({ maxRedirectsPerSite: maxPerSite, maxHeadersPerSite: 32 }),
  })
}
