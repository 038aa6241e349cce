// What the panel asks the `cache` node service, and what it answers: JSON both ways (the local node in process, a
// remote one through its agent).

/** The node service's name. */
export const cacheServiceName = 'cache'

/** The most paths one purge names. */
export const maxPurgePaths = 100

/** A path one purge may name: `/` then printable ASCII, at most 2,048 characters (it is only hashed). */
export const purgePathPattern = /^\/[\x21-\x7e]{0,2047}$/

/** A purge of the site's page cache: every page (`paths` absent), or the pages of each path (`/about/`). */
export interface CacheNodeRequest {
  readonly op: 'purge'
  readonly paths?: readonly string[]
}

/** What a purge removed. */
export interface CacheNodePurged {
  /** Cached answers removed (each path has up to four: HTTP and HTTPS, GET and HEAD). */
  readonly removed: number
}

/**
 * Where a WordPress site (its must-use plugin) asks for purges: files `<name>.purge` in `<home>/tmp/<this>/`, one
 * path a line, or `*` for every page. The node reads them as root (never following a link), purges the site's own
 * cache, then removes them as the site's user.
 */
export const purgeSpoolFolder = 'plinth-cache-purge'
