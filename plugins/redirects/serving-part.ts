// The redirects plugin's part of how a site is served: its redirects and headers, read in every site job.

import type { Db } from '../../core/index.ts'
import type { SiteRedirectSpec, SiteServing } from '../nodes/contract.ts'
import type { SiteRef, SiteServingPart } from '../sites/contract.ts'
import { headersOf, redirectsOf } from './repository.ts'
import { decodedPath } from './rules.ts'

/** Exact paths first, then prefixes longest first: the order nginx tries them in, so the server block reads so. */
const specificFirst = (a: SiteRedirectSpec, b: SiteRedirectSpec) =>
  a.match !== b.match
    ? a.match === 'exact'
      ? -1
      : 1
    : (decodedPath(b.from)?.length ?? 0) - (decodedPath(a.from)?.length ?? 0)

/** `serving.redirects` and `serving.headers` of a site, as its node is told of them. */
export const redirectsServingPart: SiteServingPart = {
  name: 'redirects',
  async read(db: Db, site: SiteRef): Promise<SiteServing> {
    const redirects = (await redirectsOf(db, site.id))
      .map(({ from, match, to, code }): SiteRedirectSpec => ({ from, match, to, code }))
      .toSorted(specificFirst)
    const { headers } = await headersOf(db, site)
    return {
      ...(redirects.length > 0 ? { redirects } : {}),
      ...(headers.length > 0 ? { headers: headers.map(({ name, value }) => ({ name, value })) } : {}),
    }
  },
}
