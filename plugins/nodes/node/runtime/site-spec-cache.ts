// The node's own check of a site's page cache before any of it is written into nginx's files: the panel's validation
// is not trusted (a value with a quote, `$`, `;`, `{` or a newline would change the server block).

import { NodeFailure, type SiteSpec } from '../contract.ts'

/** A cookie name nginx's pattern may carry: RFC 6265 token characters nginx's regex takes literally, `*` at the end. */
export const bypassCookiePattern = /^[A-Za-z0-9_-]{1,64}\*?$/
/** A path prefix: `/` then letters, digits and `/ . _ ~ % -`, at most 256 characters. */
export const excludedPathPattern = /^\/[A-Za-z0-9/._~%-]{0,255}$/
/** How long a page may be kept: one second to thirty days. */
export const cacheTtlRange = { min: 1, max: 2_592_000 } as const
const maxEntries = 64

/** Why `site`'s cache spec is unsafe, or null when every value of it may be written. */
export function unsafeCacheSpec(site: SiteSpec): string | null {
  const cache: unknown = site.serving?.cache
  if (cache === undefined) return null
  if (typeof cache !== 'object' || cache === null || Array.isArray(cache)) return 'its cache is not an object'
  const { enabled, ttlSeconds, bypassCookies, excludedPaths } = cache as Record<string, unknown>
  if (typeof enabled !== 'boolean') return 'its cache is neither on nor off'
  if (
    !(
      typeof ttlSeconds === 'number' &&
      Number.isSafeInteger(ttlSeconds) &&
      ttlSeconds >= cacheTtlRange.min &&
      ttlSeconds <= cacheTtlRange.max
    )
  )
    return `its cache TTL is not a whole number of seconds from ${cacheTtlRange.min} to ${cacheTtlRange.max}`
  const listOf = (value: unknown, pattern: RegExp) =>
    value === undefined ||
    (Array.isArray(value) &&
      value.length <= maxEntries &&
      value.every((item) => typeof item === 'string' && pattern.test(item)))
  if (!listOf(bypassCookies, bypassCookiePattern))
    return `its cache's bypass cookies are not at most ${maxEntries} cookie names (a trailing * for a prefix)`
  if (!listOf(excludedPaths, excludedPathPattern))
    return `its cache's excluded paths are not at most ${maxEntries} plain path prefixes`
  return null
}

/** Throws a {@link NodeFailure} `unsafe_site_spec` when `site`'s cache spec is unsafe (see {@link unsafeCacheSpec}). */
export function checkCacheSpec(site: SiteSpec): void {
  const refusal = unsafeCacheSpec(site)
  if (refusal)
    throw new NodeFailure(`The node refuses site ${JSON.stringify(site.id)}: ${refusal}`, 'unsafe_site_spec')
}
