// A site's redirects and response headers as lines of its nginx server block (docs/redirects.md). Every value was
// checked by `servingRedirectsProblem` (through `checkSiteSpec`): none holds `"`, `\`, `$`, `{`, `}` or a control
// character, so each is written between double quotes, where nginx gives nothing else a meaning.

import type { SiteRedirectSpec, SiteSpec } from '../contract.ts'
import { decodedPath } from './site-redirects.ts'

/**
 * `to` with a path: an origin alone (`https://example.org`) gets `/`, so a prefix's rest can never extend its host
 * (`/blog/.evil.example` would otherwise lead to `https://example.org.evil.example`).
 */
const withPath = (to: string) => (/^https?:\/\/[^/?#]+$/i.test(to) ? `${to}/` : to)

/** The request's query string, carried over to a target that has none of its own. */
const carriedQuery = (to: string) => (/[?#]/.test(to) ? '' : '$is_args$args')

/**
 * One redirect's location. Exact: `location = "<path>"`. Prefix: `location ^~ "<path>"` (no regular-expression
 * location of the site is tried after it), the rest of the request's path taken from `$request_uri` as the client
 * sent it (hex escapes in either case; never from the decoded `$uri`, whose `%0D%0A` would split the answer's headers), the prefix quoted with
 * PCRE's `\Q…\E` so none of its characters is a pattern's.
 */
function redirectLocation(given: SiteRedirectSpec): string[] {
  const redirect = { ...given, to: withPath(given.to) }
  const path = decodedPath(redirect.from) ?? redirect.from
  const query = carriedQuery(redirect.to)
  if (redirect.match === 'exact')
    return [`location = "${path}" {`, `    return ${redirect.code} "${redirect.to}${query}";`, '}']
  const rest = query === '' ? '' : '$plinth_rest'
  return [
    `location ^~ "${path}" {`,
    ...(rest === ''
      ? []
      : [
          `    if ($request_uri ~ "(?i)^\\Q${redirect.from}\\E(?<plinth_rest>[^?]*)") {`,
          `        return ${redirect.code} "${redirect.to}${rest}${query}";`,
          '    }',
        ]),
    `    return ${redirect.code} "${redirect.to}${query}";`,
    '}',
  ]
}

/**
 * The site's redirects as nginx locations, tried before its files and PHP: an exact path first, then the longest
 * prefix that matches (nginx's order, whatever the order given). None for a site without redirects.
 */
export function redirectLines(site: SiteSpec): string[] {
  const redirects = site.serving?.redirects ?? []
  if (redirects.length === 0) return []
  return [
    '# Redirects (an exact path first, then the longest prefix).',
    ...redirects.flatMap(redirectLocation),
  ]
}

/**
 * The site's response headers, `always` (error answers too). nginx drops a server's `add_header` lines in a location
 * that has any of its own: a location adding a header of its own (the page cache's `X-Cache`) repeats these lines.
 */
export function headerLines(site: SiteSpec): string[] {
  return (site.serving?.headers ?? []).map(({ name, value }) => `add_header "${name}" "${value}" always;`)
}
