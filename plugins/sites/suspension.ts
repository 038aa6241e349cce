// Sites suspended with their customer: the handler the sites plugin adds to `customers.suspensionHandlers`, moving
// each site through its lifecycle (state, job on the node, audit entry, `site.updated`) in the holder's transaction.

import { type PluginContext, type Trx, writeAudit } from '../../core/index.ts'
import type { SuspensionHandler, SuspensionRequest } from '../customers/contract.ts'
import { siteJobKinds } from './jobs.ts'
import { canTransition, type SiteStatus } from './lifecycle.ts'
import type { SitesTable, SitesTables } from './migrations.ts'
import { toSite, updateSite } from './repository.ts'

/** The sites' suspension handler. */
export function siteSuspensionHandler(context: PluginContext): SuspensionHandler {
  const sitesOf = (trx: Trx, customerId: string) =>
    trx.withTables<SitesTables>().selectFrom('sites').selectAll().where('customer_id', '=', customerId)

  /** Moves each site to `to` with its job; answers their ids. */
  async function move(
    trx: Trx,
    request: SuspensionRequest,
    rows: readonly SitesTable[],
    to: SiteStatus,
    jobKind: string,
    action: string,
  ): Promise<string[]> {
    const moved: string[] = []
    for (const row of rows) {
      if (!canTransition(row.status as SiteStatus, to)) continue
      const jobId = await context.enqueueJob(trx, {
        kind: jobKind,
        customerId: row.customer_id,
        subject: { type: 'site', id: row.id },
      })
      const updated = await updateSite(trx, row.id, { status: to, job_id: jobId })
      await writeAudit(trx, request.actor, {
        action,
        subject: { type: 'site', id: row.id },
        customerId: row.customer_id,
        details: { from: row.status, to, reason: request.reason },
      })
      await context.emit(trx, { kind: 'site.updated', customerId: row.customer_id, data: toSite(updated) })
      moved.push(row.id)
    }
    return moved
  }

  return {
    name: 'sites',
    async suspend(trx, request) {
      // Only running sites: one staff suspended by hand is not this hold's to restore.
      const rows = await sitesOf(trx, request.customerId).where('status', '=', 'active').execute()
      return move(trx, request, rows, 'suspended', siteJobKinds.suspend, 'site.suspend')
    },
    async restore(trx, request) {
      if (request.ids.length === 0) return []
      const rows = await sitesOf(trx, request.customerId)
        .where('id', 'in', request.ids)
        .where('status', '=', 'suspended')
        .execute()
      return move(trx, request, rows, 'active', siteJobKinds.unsuspend, 'site.unsuspend')
    },
    async remove(trx, request) {
      const rows = await sitesOf(trx, request.customerId)
        .where('status', 'in', ['active', 'suspended', 'failed'])
        .execute()
      return move(trx, request, rows, 'deleting', siteJobKinds.delete, 'site.delete')
    },
  }
}
