// The only file that knows the redirects plugin's columns: redirects as views reach them, a site's headers, and
// what a site's or a customer's deletion removes.

import { type Db, itemRows, nowIso } from '../../core/index.ts'
import { Redirect, type SiteHeader, type SiteHeaders } from './contract.ts'
import type { SiteHeadersTable } from './migrations.ts'

/** Redirects as callers' views reach them (those of the customers in the view), and as they are written. */
export const redirects = itemRows('site_redirects', Redirect, { customerColumn: 'customerId' })

const headerTables = (db: Db) => db.withTables<{ site_headers: SiteHeadersTable }>()
const everyone = { kind: 'all' } as const

/** Every redirect of `siteId`, in id order. */
export async function redirectsOf(db: Db, siteId: string): Promise<Redirect[]> {
  const rows = await redirects.visible(db, everyone).where('siteId', '=', siteId).orderBy('id').execute()
  return rows.map((row) => ({ ...row, code: Number(row.code) as Redirect['code'] }))
}

/** `siteId`'s headers (none kept: an empty list, `updatedAt` null). */
export async function headersOf(db: Db, site: { id: string; customerId: string }): Promise<SiteHeaders> {
  const row = await headerTables(db)
    .selectFrom('site_headers')
    .selectAll()
    .where('siteId', '=', site.id)
    .executeTakeFirst()
  return {
    siteId: site.id,
    customerId: site.customerId,
    headers: row ? (JSON.parse(row.headers) as SiteHeader[]) : [],
    updatedAt: row?.updatedAt ?? null,
  }
}

/** Keeps `headers` as `site`'s (an empty list forgets them), answering them as stored. */
export async function saveHeaders(
  db: Db,
  site: { id: string; customerId: string },
  headers: readonly SiteHeader[],
): Promise<SiteHeaders> {
  const updatedAt = nowIso()
  const row = { siteId: site.id, customerId: site.customerId, headers: JSON.stringify(headers), updatedAt }
  await headerTables(db).deleteFrom('site_headers').where('siteId', '=', site.id).execute()
  await headerTables(db).insertInto('site_headers').values(row).execute()
  return { siteId: site.id, customerId: site.customerId, headers: [...headers], updatedAt }
}

/** Removes what the plugin keeps of the records whose `column` is `value` (a site's, a customer's). */
export async function removeAll(db: Db, column: 'siteId' | 'customerId', value: string): Promise<number> {
  const gone = await redirects.removeWhere?.(db, column, value)
  await headerTables(db).deleteFrom('site_headers').where(column, '=', value).execute()
  return gone ?? 0
}
