// The panel's record of a site as a backup keeps it (`record.json` in the snapshot): what a person, or a restore
// onto a rebuilt panel, needs to know the site was: the site, its databases, and what other plugins hold of it
// through the `backups.siteRecordParts` they add (the SFTP accounts, the certificate attachment), never a secret.

import { type Db, nowIso } from '../../core/index.ts'
import type { SiteDatabaseRef } from '../databases/contract.ts'
import type { SiteRef } from '../sites/contract.ts'
import type { SiteRecordPart } from './contract.ts'

/** Bumped when the record's shape changes. */
export const siteRecordVersion = 2

/** The record of `site`, its databases and every part other plugins add, as of now (read through `db`). */
export async function siteRecord(
  db: Db,
  site: SiteRef,
  databases: readonly SiteDatabaseRef[],
  parts: readonly SiteRecordPart[],
): Promise<Record<string, unknown>> {
  const added: Record<string, unknown> = {}
  for (const part of parts) added[part.name] = await part.read(db, site.id)
  return {
    version: siteRecordVersion,
    takenAt: nowIso(),
    site: {
      id: site.id,
      customerId: site.customerId,
      type: site.type,
      domain: site.domain,
      handle: site.handle,
      nodeId: site.nodeId,
      status: site.status,
    },
    databases: databases.map((db) => ({
      id: db.id,
      name: db.name,
      engine: db.engine,
      serverId: db.serverId,
    })),
    ...added,
  }
}
