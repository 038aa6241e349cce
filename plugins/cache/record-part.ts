// The site's page cache settings in every backup's record of the site (`backups.siteRecordParts`), so a restored or
// cloned site can be given them again.

import type { SiteRecordPart } from '../backups/contract.ts'
import { findSiteCache, toSiteCache } from './repository.ts'

export const cacheRecordPart: SiteRecordPart = {
  name: 'pageCache',
  async read(db, siteId) {
    const row = await findSiteCache(db, siteId)
    if (!row) return null
    const { enabled, ttlSeconds, bypassCookies, excludedPaths } = toSiteCache(row)
    return { enabled, ttlSeconds, bypassCookies, excludedPaths }
  },
}
