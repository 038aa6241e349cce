// Reads and writes of `site_caches`, and a row as the API shows it.

import type { Db } from '../../core/index.ts'
import { builtInCacheBypassCookies, builtInCacheExcludedPaths } from '../nodes/contract.ts'
import { defaultTtlSeconds, type SiteCache } from './contract.ts'
import type { SiteCachesTable } from './migrations.ts'

/** The plugin's table through `db` (a transaction's `trx` inside one). */
const tables = (db: Db) => db.withTables<{ site_caches: SiteCachesTable }>()

/** The site's row, or null while it has the defaults. */
export function findSiteCache(db: Db, siteId: string): Promise<SiteCachesTable | undefined> {
  return tables(db).selectFrom('site_caches').selectAll().where('siteId', '=', siteId).executeTakeFirst()
}

/** The defaults of a site that never changed its cache: off. */
export const defaultRow = (siteId: string, customerId: string): SiteCachesTable => ({
  siteId,
  customerId,
  enabled: 0,
  ttlSeconds: defaultTtlSeconds,
  bypassCookies: '[]',
  excludedPaths: '[]',
  jobId: null,
  createdAt: '',
  updatedAt: '',
})

/** Writes the site's settings whole. */
export async function putSiteCache(db: Db, row: SiteCachesTable): Promise<void> {
  const { siteId: _key, createdAt: _created, ...changes } = row
  const updated = await tables(db)
    .updateTable('site_caches')
    .set(changes)
    .where('siteId', '=', row.siteId)
    .executeTakeFirst()
  if (Number(updated.numUpdatedRows) === 0) await tables(db).insertInto('site_caches').values(row).execute()
}

/** Forgets a deleted site's settings. */
export async function deleteSiteCache(db: Db, siteId: string): Promise<void> {
  await tables(db).deleteFrom('site_caches').where('siteId', '=', siteId).execute()
}

/** The row as the API shows it. */
export function toSiteCache(row: SiteCachesTable): SiteCache {
  return {
    siteId: row.siteId,
    customerId: row.customerId,
    enabled: row.enabled === 1,
    ttlSeconds: row.ttlSeconds,
    bypassCookies: JSON.parse(row.bypassCookies) as string[],
    excludedPaths: JSON.parse(row.excludedPaths) as string[],
    builtInBypassCookies: [...builtInCacheBypassCookies],
    builtInExcludedPaths: [...builtInCacheExcludedPaths],
    jobId: row.jobId,
    updatedAt: row.updatedAt || null,
  }
}
