// A site's page cache: read and change its settings (`/sites/{id}/cache`, carried to the node by a `site.update` job)
// and purge it (`POST /sites/{id}/cache/purge`, done on the node at once).

import {
  defineFormat,
  defineRoute,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  t,
  unchanged,
} from '../../../core/index.ts'
import {
  type Node,
  NodeRefusal,
  nodeDirectory,
  nodeUnavailable,
  requireReachableNode,
} from '../../nodes/contract.ts'
import {
  requireRunningSite,
  runningSiteProblems,
  type SiteRef,
  siteDirectory,
  siteServingChanges,
  siteServingProblems,
  siteTypes,
} from '../../sites/contract.ts'
import {
  type CacheNodePurged,
  type CacheNodeRequest,
  CachePurge,
  cacheScopes,
  cacheServiceName,
  maxPurgePaths,
  SiteCache,
  ttlRange,
} from '../contract.ts'
import type { SiteCachesTable } from '../migrations.ts'
import { cacheProblems as problems } from '../problems.ts'
import { defaultRow, findSiteCache, putSiteCache, toSiteCache } from '../repository.ts'

const BypassCookie = defineFormat({
  name: 'cache-bypass-cookie',
  check: (value) => /^[A-Za-z0-9_-]{1,64}\*?$/.test(value),
  problem: problems.invalid_bypass_cookie,
})
const ExcludedPath = defineFormat({
  name: 'cache-excluded-path',
  check: (value) => /^\/[A-Za-z0-9/._~%-]{0,255}$/.test(value),
  problem: problems.invalid_cache_path,
})
const PurgePath = defineFormat({
  name: 'cache-purge-path',
  // Printable ASCII without `?`: the node caches no query string.
  check: (value) => /^\/[\x21-\x3e\x40-\x7e]{0,2047}$/.test(value),
  problem: problems.invalid_cache_path,
})

const UpdateSiteCacheBody = t.Object(
  {
    enabled: t.Optional(t.Boolean({ description: 'Turns the page cache on or off.' })),
    ttlSeconds: t.Optional(
      t.Integer({
        minimum: ttlRange.min,
        maximum: ttlRange.max,
        description: `How long an answer is kept, in seconds: ${ttlRange.min} to ${ttlRange.max} (422 \`out_of_range\`).`,
      }),
    ),
    bypassCookies: t.Optional(
      t.Array(BypassCookie({ maxLength: 65 }), {
        maxItems: 32,
        description:
          'Cookies, besides the built-in ones, that bypass the cache: names or prefixes ending in `*` (replaces the list).',
      }),
    ),
    excludedPaths: t.Optional(
      t.Array(ExcludedPath({ maxLength: 256 }), {
        maxItems: 32,
        description: 'Path prefixes, besides the built-in ones, never cached (replaces the list).',
      }),
    ),
  },
  { $id: 'UpdateSiteCacheBody' },
)

const PurgeSiteCacheBody = t.Object(
  {
    paths: t.Optional(
      t.Array(PurgePath({ maxLength: 2048 }), {
        minItems: 1,
        maxItems: maxPurgePaths,
        description:
          'The paths to purge (`/about/`), each for HTTP and HTTPS, GET and HEAD. Absent: every page of the site.',
      }),
    ),
  },
  { $id: 'PurgeSiteCacheBody' },
)

const SiteParams = { id: 'site' } as const
const siteSubject = (resource: Readonly<Record<string, unknown>>) => ({
  type: 'site',
  id: resource.siteId as string,
})

/** The routes of a site's page cache. */
export function cacheRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const servingChanges = context.use(siteServingChanges)
  const types = context.extensionPoint(siteTypes)

  /** 409 `cache_needs_php` for a site whose type serves files alone (a `static` site). */
  function requirePhp(site: SiteRef): void {
    if (types.get(site.type)?.serving?.php === false)
      throw new Problem(problems.cache_needs_php, { extensions: { siteType: site.type } })
  }

  /** Asks the site's node to purge; an unreachable node or a failed call is 503 `node_unavailable`. */
  async function purgeOnNode(node: Node, site: SiteRef, request: CacheNodeRequest, signal: AbortSignal) {
    try {
      return (await nodes.call(
        node,
        { siteId: site.id, service: cacheServiceName, request },
        AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
      )) as CacheNodePurged
    } catch (error) {
      if (error instanceof NodeRefusal && error.code === 'site_not_on_node')
        throw new Problem(runningSiteProblems[1], { extensions: { siteStatus: site.status } })
      context.log.warn({ err: error, siteId: site.id, nodeId: node.id }, 'page cache purge failed')
      throw new Problem(nodeUnavailable, { detail: 'The site’s node did not answer; nothing was purged.' })
    }
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/cache',
      operationId: 'getSiteCache',
      summary: 'Read a site’s page cache settings',
      description:
        'Whether the site’s page cache is on, its TTL, the cookies and paths that bypass it (the site’s own and the built-in ones). A site that never changed them has the defaults: off, an hour.',
      scope: cacheScopes.read,
      params: SiteParams,
      responses: { 200: { description: 'The settings.', schema: SiteCache } },
      async handler({ db, params, view }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        return toSiteCache((await findSiteCache(db, site.id)) ?? defaultRow(site.id, site.customerId))
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/sites/:id/cache',
      operationId: 'updateSiteCache',
      summary: 'Change a site’s page cache',
      description:
        'Turns the page cache on or off and sets its TTL, bypass cookies and excluded paths (each given member replaces the stored one). The node serves the site’s PHP answers to GET and HEAD (200 and 301) from nginx’s cache for `ttlSeconds`, with an `X-Cache` header (HIT, MISS, BYPASS, EXPIRED, STALE, UPDATING); requests with a query string, a bypass cookie (logged-in users, carts: built in) or to an excluded path (WordPress’s admin, login, REST API: built in) always reach PHP. While it is on, a WordPress site gets a must-use plugin that purges what a content change changed within a second. The change is applied by a `site.update` job (`jobId`); a site being provisioned or retried takes it when it is provisioned, one being deleted is 409 `site_busy`. Turning the cache on first empties what an earlier time left. A site that runs no PHP (`static`) has no page cache: 409 `cache_needs_php`.',
      scope: cacheScopes.manage,
      params: SiteParams,
      body: UpdateSiteCacheBody,
      responses: { 200: { description: 'The settings after the change.', schema: SiteCache } },
      problems: [...siteServingProblems, problems.cache_needs_php],
      change: { action: 'cache.update', event: 'cache.updated', subject: siteSubject },
      // Turning it on: what nginx still holds from an earlier time on (pages changed meanwhile, unpurged) is dropped
      // first, on the node at once; a node away is no reason to refuse (its update job waits for it too).
      async prepare({ db, params, view, body, request }) {
        if (body.enabled !== true) return {}
        const site = await sites.find(db, view, params.id)
        if (!site?.nodeId || (await findSiteCache(db, site.id))?.enabled === 1) return {}
        const node = await nodes.find(site.nodeId)
        if (node && site.status === 'active')
          await purgeOnNode(node, site, { op: 'purge' }, request.signal).catch(() => {})
        return {}
      },
      async handler({ trx, params, view, body }) {
        const site = orNotFound(await sites.find(trx, view, params.id))
        requirePhp(site)
        const current = (await findSiteCache(trx, site.id)) ?? defaultRow(site.id, site.customerId)
        const next: SiteCachesTable = {
          ...current,
          ...(body.enabled === undefined ? {} : { enabled: body.enabled ? 1 : 0 }),
          ...(body.ttlSeconds === undefined ? {} : { ttlSeconds: body.ttlSeconds }),
          ...(body.bypassCookies === undefined
            ? {}
            : { bypassCookies: JSON.stringify([...new Set(body.bypassCookies)]) }),
          ...(body.excludedPaths === undefined
            ? {}
            : { excludedPaths: JSON.stringify([...new Set(body.excludedPaths)]) }),
        }
        const changed = (['enabled', 'ttlSeconds', 'bypassCookies', 'excludedPaths'] as const).filter(
          (key) => next[key] !== current[key],
        )
        if (changed.length === 0) return unchanged(toSiteCache(current))
        const now = nowIso()
        const jobId = await servingChanges.apply(trx, site)
        const row = { ...next, jobId, createdAt: current.createdAt || now, updatedAt: now }
        await putSiteCache(trx, row)
        const before = toSiteCache(current)
        const after = toSiteCache(row)
        return recorded(after, {
          customerId: site.customerId,
          details: Object.fromEntries(changed.map((key) => [key, { from: before[key], to: after[key] }])),
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/cache/purge',
      operationId: 'purgeSiteCache',
      summary: 'Purge a site’s page cache',
      description:
        'Removes cached pages on the site’s node at once: the given `paths` (each for HTTP and HTTPS, GET and HEAD), or every page when `paths` is absent (send `{}`). The next request for each is a MISS. Works whether the cache is on or off (off, there is usually nothing left). Refused for a site that is not running (409 `site_suspended`, `site_not_ready`), one that runs no PHP (409 `cache_needs_php`), and when the node does not answer (503 `node_unavailable`, nothing purged).',
      scope: cacheScopes.manage,
      params: SiteParams,
      body: PurgeSiteCacheBody,
      idempotent: false,
      responses: { 200: { description: 'What was purged.', schema: CachePurge } },
      problems: [...runningSiteProblems, problems.cache_needs_php, nodeUnavailable],
      change: {
        action: 'cache.purge',
        event: 'cache.purged',
        subject: siteSubject,
        details: (purge) => ({ paths: purge.paths, removed: purge.removed }),
      },
      async prepare({ db, params, view, body, request }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        requirePhp(site)
        requireRunningSite(site)
        const node = site.nodeId ? await nodes.find(site.nodeId) : null
        requireReachableNode(node)
        const paths = body.paths ? [...new Set(body.paths)] : null
        const { removed } = await purgeOnNode(
          node,
          site,
          { op: 'purge', ...(paths ? { paths } : {}) },
          request.signal,
        )
        return {
          purge: { siteId: site.id, customerId: site.customerId, paths, removed } satisfies CachePurge,
        }
      },
      async handler({ trx, params, view, prepared: { purge } }) {
        orNotFound(await sites.find(trx, view, params.id))
        return purge
      },
    }),
  ]
}
