// The cache plugin's part of how a site is served: `serving.cache`, read in every site job.

import type { SiteServingPart } from '../sites/contract.ts'
import { findSiteCache } from './repository.ts'

/** `serving.cache` from the site's row; nothing for a site that never changed its cache (the node's default: off). */
export const cacheServingPart: SiteServingPart = {
  name: 'cache',
  async read(db, site) {
    const row = await findSiteCache(db, site.id)
    if (!row) return {}
    return {
      cache: {
        enabled: row.enabled === 1,
        ttlSeconds: row.ttlSeconds,
        bypassCookies: JSON.parse(row.bypassCookies) as string[],
        excludedPaths: JSON.parse(row.excludedPaths) as string[],
      },
    }
  },
}
