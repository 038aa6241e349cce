// Reads and writes of `staging_sites`, and the API's shape of a row.

import type { Db } from '../../core/index.ts'
import type { SiteDirectory } from '../sites/contract.ts'
import type { Staging, StagingPush } from './contract.ts'
import type { StagingSitesTable, StagingTables } from './migrations.ts'

export const stagingTables = (db: Db) => db.withTables<StagingTables>()

const everyone = { kind: 'all' } as const

/** The staging row `siteId` is in, as the live site or as the staging copy. */
export async function stagingOf(db: Db, siteId: string): Promise<StagingSitesTable | undefined> {
  return stagingTables(db)
    .selectFrom('staging_sites')
    .selectAll()
    .where((w) => w.or([w('live_site_id', '=', siteId), w('staging_site_id', '=', siteId)]))
    .executeTakeFirst()
}

export async function updateStaging(
  db: Db,
  stagingSiteId: string,
  changes: Partial<Omit<StagingSitesTable, 'staging_site_id' | 'live_site_id'>>,
): Promise<void> {
  await stagingTables(db)
    .updateTable('staging_sites')
    .set(changes)
    .where('staging_site_id', '=', stagingSiteId)
    .execute()
}

/** The row as the API shows it, with both sites' domains as they are now. */
export async function toStaging(db: Db, sites: SiteDirectory, row: StagingSitesTable): Promise<Staging> {
  const [live, staging] = await Promise.all([
    sites.find(db, everyone, row.live_site_id),
    sites.find(db, everyone, row.staging_site_id),
  ])
  return {
    liveSiteId: row.live_site_id,
    liveDomain: live?.domain ?? '',
    stagingSiteId: row.staging_site_id,
    stagingDomain: staging?.domain ?? '',
    customerId: row.customer_id,
    status: row.status as Staging['status'],
    jobId: row.job_id,
    error:
      row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? row.error_code },
    lastPush: row.last_push_json ? (JSON.parse(row.last_push_json) as StagingPush) : null,
    createdAt: row.created_at,
  }
}
