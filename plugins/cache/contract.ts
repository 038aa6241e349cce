// The cache plugin's public contract: a site's page cache as the API shows it, a purge's answer, its scopes, and what
// the panel asks the `cache` node service.

import { type Static, t } from '../../core/index.ts'

export {
  type CacheNodePurged,
  type CacheNodeRequest,
  cacheServiceName,
  maxPurgePaths,
} from './node/protocol.ts'

/** The cache plugin's scopes: owner, admin and developer hold both. */
export const cacheScopes = {
  /** Read a site's page cache settings. */
  read: 'cache:read',
  /** Change them, and purge the cache. */
  manage: 'cache:manage',
} as const

/** How long a page may be kept, in seconds: one second to thirty days (the node checks the same). */
export const ttlRange = { min: 1, max: 2_592_000 } as const
/** A new site's TTL: an hour (WordPress's content changes purge what they change at once). */
export const defaultTtlSeconds = 3600

/** A site's page cache, as the API returns it. */
export const SiteCache = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    customerId: t.String({ description: 'The site’s customer.' }),
    enabled: t.Boolean({
      description:
        'Whether nginx keeps the site’s PHP answers (GET and HEAD, status 200 and 301) and serves them again without PHP. Default false.',
    }),
    ttlSeconds: t.Integer({
      minimum: ttlRange.min,
      maximum: ttlRange.max,
      description: `How long an answer is served from the cache, in seconds (${ttlRange.min} to ${ttlRange.max}). Default ${defaultTtlSeconds}.`,
    }),
    bypassCookies: t.Array(t.String(), {
      description:
        'Cookies, besides the built-in ones, whose presence on a request bypasses the cache (a name, or a prefix ending in `*`).',
    }),
    excludedPaths: t.Array(t.String(), {
      description: 'Path prefixes, besides the built-in ones, never cached (`/cart/`).',
    }),
    builtInBypassCookies: t.Array(t.String(), {
      description:
        'Cookies that always bypass the cache: logged-in WordPress users, password-protected posts, commenters, WooCommerce carts and sessions.',
    }),
    builtInExcludedPaths: t.Array(t.String(), {
      description: 'Paths never cached: WordPress’s admin, login, REST API, XML-RPC and cron.',
    }),
    jobId: t.Union([t.String(), t.Null()], {
      description:
        'The `site.update` job carrying the last change to the node (null: nothing to carry, or the site takes it when it is provisioned).',
    }),
    updatedAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When the settings were last changed (null: never, the defaults).',
    }),
  },
  { $id: 'SiteCache' },
)
export type SiteCache = Static<typeof SiteCache>

/** What a purge did, as the API answers it. */
export const CachePurge = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    customerId: t.String({ description: 'The site’s customer.' }),
    paths: t.Union([t.Array(t.String()), t.Null()], {
      description: 'The paths purged (each for HTTP and HTTPS, GET and HEAD), or null: every page.',
    }),
    removed: t.Integer({ description: 'How many cached answers the node removed.' }),
  },
  { $id: 'CachePurge' },
)
export type CachePurge = Static<typeof CachePurge>
