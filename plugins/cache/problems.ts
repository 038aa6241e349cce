// Refusals of the cache plugin.

import { defineProblems } from '../../core/index.ts'

/** The cache plugin's problem codes, catalogued in docs/problem-codes.md. */
export const cacheProblems = defineProblems({
  invalid_bypass_cookie: {
    status: 422,
    detail:
      'A bypass cookie is not a cookie name (letters, digits, `_` and `-`, a trailing `*` for a prefix).',
    description:
      'Each of `bypassCookies` must match `^[A-Za-z0-9_-]{1,64}\\*?$`: a cookie’s name (`my_session`) or a prefix ending in `*` (`wp_woocommerce_session_*`). At most 32. The error at `body.bypassCookies.N` names the one refused.',
  },
  invalid_cache_path: {
    status: 422,
    detail: 'A path is not a plain path starting with `/`.',
    description:
      'Excluded paths (`excludedPaths`) are prefixes of `/` then letters, digits and `/ . _ ~ % -` (at most 256 characters, 32 of them); a purge’s `paths` are up to 100 paths of `/` then printable ASCII without a query string (`?`), at most 2,048 characters each.',
  },
  cache_needs_php: {
    status: 409,
    detail: 'The site runs no PHP, so it has no page cache.',
    description:
      'The page cache keeps the answers of a site’s PHP: a `static` site’s files are served by nginx directly (with long cache headers on assets) and there is nothing to cache or purge.',
  },
})
