// Reads and writes of the sites table; the only file that knows its columns.

import {
  type Db,
  preparedInsert,
  preparedQuery,
  sql,
  type TenantView,
  visibleTable,
} from '../../core/index.ts'
import type { Site, SiteRef } from './contract.ts'
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
    nodeId: row.node_id,
    jobId: row.job_id,
    limits: {
      diskMB: row.disk_mb,
      cpuPercent: row.cpu_percent,
      memoryMB: row.memory_mb,
      processes: row.processes,
    },
    suspendedByStaff: row.suspended_by_staff === 1,
    error:
      row.error_code === null
        ? null
        : { code: row.error_code, message: row.error_message ?? '', jobId: row.error_job_id },
    drift:
      row.drift_code === null
        ? null
        : {
            code: row.drift_code,
            message: row.drift_message ?? '',
            jobId: row.drift_job_id,
            detectedAt: row.drift_detected_at ?? row.updated_at,
          },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

const sites = (db: Db) => db.withTables<SitesTables>()

/** Sites as views reach them: those of the customers inside the view (reads and lists, keyed by `sites.id`). */
export const siteRows = visibleTable(sites, 'sites', { customerColumn: 'customer_id' })

/** What other plugins see of a site inside a view (the sites directory), or null. */
export async function findSite(db: Db, view: TenantView, id: string): Promise<SiteRef | null> {
  const row = await siteRows.visible(db, view).where('sites.id', '=', id).executeTakeFirst()
  return row ? siteRefOf(row) : null
}

/** The site serving `domain` that `view` reaches, or null. */
export async function findSiteByDomain(db: Db, view: TenantView, domain: string): Promise<SiteRef | null> {
  const row = await siteRows.visible(db, view).where('sites.domain', '=', domain).executeTakeFirst()
  return row ? siteRefOf(row) : null
}

/** The `active` sites `view` reaches after `after`, by id, at most `limit` (the sites directory's `listActive`). */
export async function listActiveSites(
  db: Db,
  view: TenantView,
  after: string | null,
  limit: number,
): Promise<SiteRef[]> {
  let query = siteRows.visible(db, view).where('sites.status', '=', 'active')
  if (after !== null) query = query.where('sites.id', '>', after)
  const rows = await query.orderBy('sites.id').limit(limit).execute()
  return rows.map(siteRefOf)
}

/** What other plugins see of a site. */
export function siteRefOf(row: Parameters<typeof toSite>[0]): SiteRef {
  const { customerId, status, domain, handle, nodeId, type, createdAt } = toSite(row)
  return { id: row.id, customerId, status, domain, handle, nodeId, type, createdAt }
}

/** Handles already taken that start with `base` (the candidates for a numbered suffix). */
export async function handlesLike(db: Db, base: string): Promise<Set<string>> {
  // A range on the unique index, not LIKE: SQLite's LIKE is case-insensitive and scans every site (measured at
  // 140 ms a create with 1M sites). Handles are [a-z0-9-], all below '~', so [prefix, prefix~) is every extension.
  const prefix = base.slice(0, 16)
  const rows = await handlesBetween(db, { from: prefix, to: `${prefix}~` })
  return new Set(rows.map((row) => row.handle))
}

// Prepared once: every create runs these.
const handlesBetween = preparedQuery<{ from: string; to: string }, { handle: string }>((db, p) =>
  sites(db).selectFrom('sites').select('handle').where('handle', '>=', p.from).where('handle', '<', p.to),
)
const siteWithDomain = preparedQuery<{ domain: string }, { id: string }>((db, p) =>
  sites(db).selectFrom('sites').select('id').where('domain', '=', p.domain),
)
const insertSiteRow = preparedInsert<SitesTable>('sites', [
  'id',
  'customer_id',
  'handle',
  'name',
  'type',
  'domain',
  'status',
  'node_id',
  'job_id',
  'disk_mb',
  'suspended_by_staff',
  'error_code',
  'error_message',
  'error_job_id',
  'drift_code',
  'drift_message',
  'drift_job_id',
  'drift_detected_at',
  'cpu_percent',
  'memory_mb',
  'processes',
  'applied_limits',
  'created_at',
  'updated_at',
])
const countOnNodeUpsert = preparedQuery<{ nodeId: string; delta: number }, never>((db, p) =>
  sites(db)
    .insertInto('node_site_counts')
    .values({ node_id: p.nodeId, sites: p.delta })
    .onConflict((conflict) =>
      conflict.column('node_id').doUpdateSet({ sites: sql`node_site_counts.sites + excluded.sites` }),
    ),
)

/** Whether a site already has this domain. */
export async function domainTaken(db: Db, domain: string): Promise<boolean> {
  return (await siteWithDomain(db, { domain })).length > 0
}

/** Inserts a site row, counting it on its node. Call it in the creating transaction. */
export async function insertSite(db: Db, row: SitesTable): Promise<void> {
  await insertSiteRow(db, row)
  if (row.node_id !== null) await countOnNode(db, row.node_id, 1)
}

/** Moves a node's site count by `delta`. */
async function countOnNode(db: Db, nodeId: string, delta: number): Promise<void> {
  await countOnNodeUpsert(db, { nodeId, delta })
}

/** The site row with this id, or undefined (no tenancy: for jobs and kernel callbacks). */
export function findSiteRow(db: Db, id: string): Promise<SitesTable | undefined> {
  return sites(db).selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Changes columns of a site, stamping `updated_at`; returns the row after the change. */
export async function updateSite(
  db: Db,
  id: string,
  changes: Partial<Omit<SitesTable, 'id' | 'customer_id' | 'created_at'>>,
): Promise<SitesTable> {
  await sites(db)
    .updateTable('sites')
    .set({ ...changes, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute()
  const row = await findSiteRow(db, id)
  if (!row) throw new Error(`Site ${id} vanished during an update`)
  return row
}

/** Removes a site row, and its count on its node. Call it in the removing transaction. */
export async function deleteSiteRow(db: Db, id: string): Promise<void> {
  const row = await sites(db).selectFrom('sites').select('node_id').where('id', '=', id).executeTakeFirst()
  if (!row) return
  await sites(db).deleteFrom('sites').where('id', '=', id).execute()
  await sites(db).deleteFrom('site_limit_watch').where('site_id', '=', id).execute()
  if (row.node_id !== null) await countOnNode(db, row.node_id, -1)
}

/** How many sites each of these nodes holds (placement picks the emptiest): one row a node, whatever the total. */
export async function siteCountsByNode(db: Db, nodeIds: readonly string[]): Promise<Map<string, number>> {
  if (nodeIds.length === 0) return new Map()
  const rows = await sites(db)
    .selectFrom('node_site_counts')
    .select(['node_id', 'sites'])
    .where('node_id', 'in', nodeIds)
    .execute()
  return new Map(rows.map((row) => [row.node_id, Number(row.sites)]))
}

/** Site ids to their customer and node, for traffic a node reports. */
export async function locateSites(db: Db, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, { customerId: string; nodeId: string }>()
  const rows = await sites(db)
    .selectFrom('sites')
    .select(['id', 'customer_id', 'node_id'])
    .where('id', 'in', ids)
    .execute()
  return new Map(
    rows
      .filter((row) => row.node_id !== null)
      .map((row) => [row.id, { customerId: row.customer_id, nodeId: row.node_id ?? '' }]),
  )
}

/** How many sites the node `nodeId` holds, in any state. */
export async function siteCountOnNode(db: Db, nodeId: string): Promise<number> {
  const row = await db
    .withTables<SitesTables>()
    .selectFrom('sites')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('node_id', '=', nodeId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Forgets the count of sites of a node that is being deleted (it holds none). */
export async function forgetNodeCount(db: Db, nodeId: string): Promise<void> {
  await db.withTables<SitesTables>().deleteFrom('node_site_counts').where('node_id', '=', nodeId).execute()
}

/** Every site placed on the node `nodeId`, in any state (reconciliation compares them with what the node holds). */
export function siteRowsOnNode(db: Db, nodeId: string): Promise<SitesTable[]> {
  return sites(db).selectFrom('sites').selectAll().where('node_id', '=', nodeId).orderBy('id').execute()
}

/** Records the limits (JSON, site-limits.ts) the site's node took last; does not touch `updated_at`. */
export async function recordAppliedLimits(db: Db, id: string, limits: string): Promise<void> {
  await sites(db).updateTable('sites').set({ applied_limits: limits }).where('id', '=', id).execute()
}

/** The `active` sites on node `nodeId`, oldest first: the ones whose limits the limits check applies and reads. */
export function activeSitesOn(db: Db, nodeId: string): Promise<SitesTable[]> {
  return sites(db)
    .selectFrom('sites')
    .selectAll()
    .where('node_id', '=', nodeId)
    .where('status', '=', 'active')
    .orderBy('id')
    .execute()
}

/** The nodes that hold `active` sites. */
export async function nodesWithActiveSites(db: Db): Promise<string[]> {
  const rows = await sites(db)
    .selectFrom('sites')
    .select('node_id')
    .distinct()
    .where('status', '=', 'active')
    .where('node_id', 'is not', null)
    .orderBy('node_id')
    .execute()
  return rows.flatMap((row) => (row.node_id ? [row.node_id] : []))
}

/**
 * Whether this instance runs the limits check now: true when it was due and this call moved it on by `intervalMs`
 * (only one instance's update matches). The first check is one interval after the first look.
 */
export async function claimLimitsCheck(db: Db, intervalMs: number, now = new Date()): Promise<boolean> {
  const next = new Date(now.getTime() + intervalMs).toISOString()
  const checks = sites(db)
  const existing = await checks
    .selectFrom('site_limit_checks')
    .selectAll()
    .where('id', '=', 'limits')
    .executeTakeFirst()
  if (!existing) {
    await checks
      .insertInto('site_limit_checks')
      .values({ id: 'limits', next_at: next })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute()
    return false
  }
  if (existing.next_at > now.toISOString()) return false
  const result = await checks
    .updateTable('site_limit_checks')
    .set({ next_at: next })
    .where('id', '=', 'limits')
    .where('next_at', '=', existing.next_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}
