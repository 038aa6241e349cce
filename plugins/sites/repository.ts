// Reads and writes of the sites table; the only file that knows its columns.

import { type Db, selectVisible, type TenantView } from '../../core/index.ts'
import type { Site } from './contract.ts'
import type { SitesTable, SitesTables } from './migrations.ts'

/** The API form of a row. */
export function toSite(row: SitesTable): Site {
  return {
    id: row.id,
    handle: row.handle,
    name: row.name,
    type: row.type,
    domain: row.domain,
    status: row.status as Site['status'],
    customerId: row.customer_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

const sites = (db: Db) => db.withTables<SitesTables>()

/** Sites of customers inside a view, as a query for reads and lists: keyed by `sites.id`. */
export function visibleSites(db: Db, view: TenantView) {
  return selectVisible(sites(db), 'sites', view).selectAll()
}

/** Handles already taken that start with `base` (the candidates for a numbered suffix). */
export async function handlesLike(db: Db, base: string): Promise<Set<string>> {
  // A range on the unique index, not LIKE: SQLite's LIKE is case-insensitive and scans every site (measured at
  // 140 ms a create with 1M sites). Handles are [a-z0-9-], all below '~', so [prefix, prefix~) is every extension.
  const prefix = base.slice(0, 16)
  const rows = await sites(db)
    .selectFrom('sites')
    .select('handle')
    .where('handle', '>=', prefix)
    .where('handle', '<', `${prefix}~`)
    .execute()
  return new Set(rows.map((row) => row.handle))
}

/** Whether a site already has this domain. */
export async function domainTaken(db: Db, domain: string): Promise<boolean> {
  return (
    (await sites(db).selectFrom('sites').select('id').where('domain', '=', domain).executeTakeFirst()) !==
    undefined
  )
}

/** Inserts a site row. */
export async function insertSite(db: Db, row: SitesTable): Promise<void> {
  await sites(db).insertInto('sites').values(row).execute()
}
