// A site's page cache in its nginx server block (nginx's FastCGI cache of its PHP answers, one zone per site), and
// what every site gets for its static files: gzip for text types and long cache headers on assets.
//
// The cache key is `$scheme$request_method$request_uri` (the zone is the site's own, its one `server_name` makes the
// host redundant): the `cache` node service (plugins/cache/node/) purges a path by deleting the files of
// md5(`http` + `GET` + path) and its HTTPS and HEAD variants, at `<zone dir>/<last hex>/<two hex before>/<md5>`
// (`levels=1:2`). Keep the two in step.

import { join } from 'node:path'
import {
  builtInCacheBypassCookies,
  builtInCacheExcludedPaths,
  type SiteCacheSpec,
  type SiteSpec,
} from '../contract.ts'
import type { RuntimeLayout } from './layout.ts'

/** The bytes a site's cache may take on the node's disk (outside its quota): nginx's cache manager trims past it. */
export const pageCacheMaxSizeMB = 256

/** `<dataDir>/nginx/page-cache`: one folder per site whose cache is on, made by nginx's master for its workers. */
export const pageCacheRoot = (layout: RuntimeLayout) => join(layout.nginx.prefix, 'page-cache')

/**
 * A site id as an nginx zone name: `_` doubled and `-` as `_h`, so two ids never give the same name (site ids
 * passed `checkSiteSpec`: letters, digits, `_` and `-`).
 */
export const cacheZoneName = (siteId: string) => `plinth_${siteId.replace(/_/g, '__').replace(/-/g, '_h')}`

/** The cache as the site's spec has it, when it is on (and the site runs PHP); null otherwise. */
export function activeCache(site: SiteSpec, php: boolean): SiteCacheSpec | null {
  const cache = site.serving?.cache
  return php && cache?.enabled === true ? cache : null
}

/** A cookie name (or prefix ending in `*`) as a regular expression matching its name in a `Cookie` header. */
const cookieRegex = (name: string) => (name.endsWith('*') ? `${name.slice(0, -1)}[^=;]*` : name)

/** A path prefix as a regular expression: the checked characters, `.` escaped (nothing else is special). */
const pathRegex = (path: string) => path.replace(/\./g, '\\.')

/**
 * The lines at http level, before the site's servers: its cache zone (keys in 2 MB of shared memory, about 16,000
 * pages; at most {@link pageCacheMaxSizeMB} on disk; a page unused for a day dropped), or none when the cache is off.
 */
export function cacheZoneLines(site: SiteSpec, layout: RuntimeLayout, php: boolean): string[] {
  if (!activeCache(site, php)) return []
  const dir = join(pageCacheRoot(layout), site.id)
  return [
    `fastcgi_cache_path "${dir}" levels=1:2 keys_zone=${cacheZoneName(site.id)}:2m max_size=${pageCacheMaxSizeMB}m inactive=1d use_temp_path=off;`,
  ]
}

/**
 * The lines at server level: gzip for text types on every site; with the cache on, `$plinth_cache_skip` set for
 * requests the cache never answers (not GET or HEAD, a query string, an `Authorization` header, an excluded path, a
 * bypass cookie).
 */
export function cacheServerLines(site: SiteSpec, php: boolean): string[] {
  const gzip = [
    'gzip on;',
    'gzip_comp_level 5;',
    'gzip_min_length 256;',
    'gzip_vary on;',
    'gzip_proxied any;',
    'gzip_types text/css text/plain text/xml application/javascript application/json application/xml application/rss+xml application/atom+xml image/svg+xml font/ttf font/otf;',
  ]
  const cache = activeCache(site, php)
  if (!cache) return gzip
  const cookies = [...new Set([...builtInCacheBypassCookies, ...(cache.bypassCookies ?? [])])].map(
    cookieRegex,
  )
  const paths = [...new Set([...builtInCacheExcludedPaths, ...(cache.excludedPaths ?? [])])].map(pathRegex)
  return [
    ...gzip,
    'set $plinth_cache_skip 0;',
    'if ($request_method !~ ^(GET|HEAD)$) {',
    '    set $plinth_cache_skip 1;',
    '}',
    'if ($args != "") {',
    '    set $plinth_cache_skip 1;',
    '}',
    // A request that authenticates itself (HTTP authentication in front of a staging site, an API client).
    'if ($http_authorization != "") {',
    '    set $plinth_cache_skip 1;',
    '}',
    `if ($request_uri ~ "^(${paths.join('|')})") {`,
    '    set $plinth_cache_skip 1;',
    '}',
    `if ($http_cookie ~ "(^|;) *(${cookies.join('|')})=") {`,
    '    set $plinth_cache_skip 1;',
    '}',
  ]
}

/**
 * The lines inside the site's `.php` location: its zone, key, how long 200 and 301 answers are kept, and the `X-Cache`
 * header (HIT, MISS, BYPASS, EXPIRED, STALE, UPDATING; absent on answers the cache had no part in).
 */
export function cacheLocationLines(site: SiteSpec, php: boolean): string[] {
  const cache = activeCache(site, php)
  if (!cache) return []
  return [
    `fastcgi_cache ${cacheZoneName(site.id)};`,
    'fastcgi_cache_key "$scheme$request_method$request_uri";',
    `fastcgi_cache_valid 200 301 ${cache.ttlSeconds}s;`,
    'fastcgi_cache_bypass $plinth_cache_skip;',
    'fastcgi_no_cache $plinth_cache_skip;',
    // One request fills a missing page while the others wait for it; an expired one is refreshed in the background.
    'fastcgi_cache_lock on;',
    'fastcgi_cache_lock_timeout 5s;',
    'fastcgi_cache_use_stale updating error timeout http_500 http_503;',
    'fastcgi_cache_background_update on;',
    // In the location, beside the site's own headers (server-block-redirects.ts repeats them here): a location with
    // any `add_header` of its own inherits none of the server's.
    'add_header X-Cache $upstream_cache_status always;',
  ]
}

/**
 * A location for static assets on every site (css, js, images, fonts, media): long cache headers (30 days,
 * `Cache-Control: max-age`), the site's fallback for a missing one as before. After the dot-file and `.php`
 * locations, so those still match first.
 */
export function staticAssetLines(fallback: string): string[] {
  return [
    'location ~* \\.(?:css|js|mjs|map|png|jpe?g|gif|webp|avif|svg|ico|woff2?|ttf|otf|eot|mp4|webm|mp3|ogg)$ {',
    '    expires 30d;',
    `    try_files $uri ${fallback};`,
    '}',
  ]
}
