// The panel's record of a site as a backup keeps it (`record.json` in the snapshot): what a person, or a restore
// onto a rebuilt panel, needs to know the site was. Only what other plugins publish through their contracts: the
// certificates and SFTP plugins expose no reader of a site's attachment or accounts, so neither is in it yet.

import { nowIso } from '../../core/index.ts'
import type { SiteDatabaseRef } from '../databases/contract.ts'
import type { SiteRef } from '../sites/contract.ts'

/** Bumped when the record's shape changes. */
export const siteRecordVersion = 1

/** The record of `site` and its databases, as of now. */
export function siteRecord(site: SiteRef, databases: readonly SiteDatabaseRef[]): Record<string, unknown> {
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
  }
}
