// What other plugins and clients may import of the redirects plugin: a site's redirects and response headers as
// the API shows them, and its refusals.

import { enumOf, resourceItem, type Static, t } from '../../core/index.ts'

export { redirectProblems } from './problems.ts'

/** How a redirect matches a request's path. */
export const redirectMatches = ['exact', 'prefix'] as const
/** The status codes a redirect answers with. */
export const redirectCodes = [301, 302, 307, 308] as const

/** A redirect's status code, one of {@link redirectCodes}. */
export const RedirectCode = t.Union(
  redirectCodes.map((code) => t.Literal(code)),
  {
    description:
      '301 or 308 moved for good (browsers and search engines remember it), 302 or 307 for now; 307 and 308 keep the request’s method and body.',
  },
)

/** A site's redirect as the API shows it. */
export const Redirect = resourceItem('Redirect', 'rdr', {
  siteId: t.String({ description: 'Its site, `site_…`.' }),
  customerId: t.String({ description: 'The site’s customer, `cus_…`.' }),
  from: t.String({
    description:
      'The path it matches, starting with `/`, as a client writes it (`%XX` escapes compared decoded, case-sensitive), without query string.',
    examples: ['/old-page'],
  }),
  match: enumOf(redirectMatches, {
    description:
      '`exact`: the path alone; `prefix`: every path starting with it (`/blog/` takes `/blog/2024/post`), the rest appended to `to`. An exact redirect wins over a prefix one, and the longest prefix over shorter ones, whatever their order.',
  }),
  to: t.String({
    description:
      'Where to: a path of the site (`/new-page`) or an absolute `https://` or `http://` URL (an origin alone is kept with `/`). The request’s query string is appended unless `to` has one (or a fragment).',
    examples: ['https://example.org/new-page'],
  }),
  code: RedirectCode,
})
export type Redirect = Static<typeof Redirect>

/** A response header a site adds. */
export const SiteHeader = t.Object(
  {
    name: t.String({
      minLength: 1,
      maxLength: 64,
      description: 'An HTTP field name (RFC 9110 token, no `$`), not one the node owns: `X-Frame-Options`.',
      examples: ['Strict-Transport-Security'],
    }),
    value: t.String({
      minLength: 1,
      maxLength: 4096,
      description: 'Printable ASCII without `"`, `\\` or `$`, not starting or ending with a space.',
      examples: ['max-age=31536000; includeSubDomains'],
    }),
  },
  { $id: 'SiteHeader' },
)
export type SiteHeader = Static<typeof SiteHeader>

/** A site's response headers as the API shows them (`GET`/`PUT /sites/{id}/headers`). */
export const SiteHeaders = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    customerId: t.String({ description: 'The site’s customer, `cus_…`.' }),
    headers: t.Array(SiteHeader, {
      description: 'Added to every answer of the site (pages, PHP, redirects, errors), in this order.',
    }),
    updatedAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When they were last changed; null: never set.',
    }),
  },
  { $id: 'SiteHeaders' },
)
export type SiteHeaders = Static<typeof SiteHeaders>
