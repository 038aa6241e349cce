// The cache plugin: a page cache per site (nginx's FastCGI cache on the site's node), its settings
// (`GET/PATCH /sites/{id}/cache`, scopes `cache:read` and `cache:manage`) given to the node as `serving.cache`, purges
// (`POST /sites/{id}/cache/purge`) by the `cache` node service, and WordPress's purges on content changes
// (docs/cache.md).

import { definePlugin } from '../../core/index.ts'
import { siteRecordParts } from '../backups/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { siteDependents, siteServingParts } from '../sites/contract.ts'
import { CachePurge, cacheScopes, SiteCache } from './contract.ts'
import { cacheMigrations } from './migrations.ts'
import cacheNodeModule from './node/index.ts'
import { cacheProblems } from './problems.ts'
import { cacheRecordPart } from './record-part.ts'
import { deleteSiteCache } from './repository.ts'
import { followRestores, restorePurgeJob } from './restore-purge.ts'
import { cacheRoutes } from './routes/cache.ts'
import { cacheServingPart } from './serving-part.ts'

/** Who holds the cache scopes on a customer: hosting is the developers' work too. */
const hostingRoles = ['owner', 'admin', 'developer'] as const

/** Page caches of sites, purged on demand and on WordPress's content changes. */
export const cachePlugin = () =>
  definePlugin({
    name: 'cache',
    version: '0.1.0',
    description:
      'A page cache per site (nginx’s FastCGI cache on its node), purged on demand and when WordPress content changes.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console tab, when the installation has a console; its settings in backups' records, when it has backups.
    enhances: ['console', 'backups'],
    scopes: [
      { name: cacheScopes.read, description: 'Read sites’ page cache settings', roles: hostingRoles },
      {
        name: cacheScopes.manage,
        description: 'Change sites’ page cache settings and purge their caches',
        roles: hostingRoles,
      },
    ],
    events: [
      {
        kind: 'cache.updated',
        description: 'A site’s page cache settings changed (on or off, TTL, bypass cookies, excluded paths).',
        payload: SiteCache,
      },
      {
        kind: 'cache.purged',
        description:
          'A site’s page cache was purged: through the API (some paths, or every page), or every page after a restore into the site (a backup, a staging push, an undo).',
        payload: CachePurge,
      },
    ],
    problems: cacheProblems,
    migrations: cacheMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.extensionPoint(siteRecordParts).add(cacheRecordPart)
      // Every site job tells the node the site's cache as the table has it then.
      context.extensionPoint(siteServingParts).add(cacheServingPart)
      // Local node and agents alike: purges, and WordPress's purge spools.
      context.extensionPoint(nodeModules).add({ module: cacheNodeModule })
      context.extensionPoint(siteDependents).add({
        name: 'cache',
        remove: (run, site) => run.transaction((trx) => deleteSiteCache(trx, site.id)).then(() => {}),
      })
      // A restore into a site (a backup, a staging push, an undo) purges its whole cache, when it has backups.
      followRestores(context)
    },
    jobs: (context) => [restorePurgeJob(context)],
    routes: cacheRoutes,
  })
