// The public branding: what the sign-in page needs to wear a brand's theme, before anyone has signed in.

import { defineRoute, type PluginContext, type RouteDefinition, t } from '../../../core/index.ts'
import { Branding } from '../contract.ts'
import { hostOfLocation } from '../hostnames.ts'
import { brandingFor } from '../repository.ts'

const BrandingQuery = t.Object({
  host: t.Optional(
    t.String({
      maxLength: 300,
      description:
        'The host the page was loaded from (`location.host`; any case, a port is ignored): the brand that has this host name, if any, is shown.',
      examples: ['panel.reseller.example'],
    }),
  ),
  brandId: t.Optional(
    t.String({
      maxLength: 300,
      description:
        'The brand to show when no brand has the host name (a `?brand=` link); an unknown id shows the default brand.',
      examples: ['brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'],
    }),
  ),
})

/** GET /branding. */
export function brandingRoutes({ db }: PluginContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/branding',
      operationId: 'getBranding',
      summary: 'The brand a sign-in page shows',
      description:
        'Public: no credentials. The name and theme of the brand whose host names include `host`, else of the brand `brandId`, else of the default brand; an unknown or malformed `brandId` is not refused, the default brand is shown. Nothing else of the brand (its host names, staff or customers) is given. Answered with an `ETag`: send it back as `If-None-Match` to get 304 while nothing changed (a theme may change at any time, so check again rather than keep it).',
      public: true,
      query: BrandingQuery,
      responses: { 200: { description: 'The brand to show.', schema: Branding } },
      async handler({ query }) {
        const host = query.host === undefined ? null : hostOfLocation(query.host)
        // A plain answer, not a Reply: the kernel tags it, so a page that asks again gets 304 while nothing changed.
        return brandingFor(db, host, query.brandId ?? null)
      },
    }),
  ]
}
