// Sites suspended with their customer: the handler the sites plugin adds to `customers.suspensionHandlers`, moving
// each site through its lifecycle (state, job on the node, audit entry, `site.updated`) in the holder's transaction.

import { type PluginContext, type Trx, writeAudit } from '../../core/index.ts'
import { customerSuspensions, type SuspensionHandler, type SuspensionRequest } from '../customers/contract.ts'
import { siteJobKinds } from './jobs.ts'
import { moveSite, type SiteWriters } from './lifecycle.ts'
import type { SitesTables } from './migrations.ts'
import { startSiteDeletion } from './site-deletion.ts'

/** The sites' suspension handler. */
export function siteSuspensionHandler(context: PluginContext): SuspensionHandler {
  const suspensions = context.use(customerSuspensions)
  const sitesOf = (trx: Trx, customerId: string) =>
    trx.withTables<SitesTables>().selectFrom('sites').selectAll().where('customer_id', '=', customerId)

  /** The hold's writers: its requester is the actor, and the jobs it starts are the requester's where it can say. */
  const writersOf = (request: SuspensionRequest): SiteWriters => ({
    enqueueJob: request.enqueueJob ?? context.enqueueJob,
    audit: (trx, entry) => writeAudit(trx, request.actor, entry),
    emit: context.emit,
  })

  return {
    name: 'sites',
    async suspend(trx, request) {
      const writers = writersOf(request)
      const rows = await sitesOf(trx, request.customerId)
        .where('status', 'in', ['active', 'provisioning', 'suspended'])
        .execute()
      const covered: string[] = []
      for (const row of rows) {
        if (row.status === 'active') {
          await moveSite(trx, writers, row, {
            to: 'suspended',
            jobKind: siteJobKinds.suspend,
            action: 'site.suspend',
            details: { reason: request.reason },
          })
        }
        // A provisioning site comes up suspended (the provision job asks who holds it). An already suspended one is
        // covered only when a reason the panel knows keeps it so (staff, or another hold): one suspended before
        // reasons were recorded was not this hold's doing, and its release must not lift it.
        if (row.status === 'suspended' && row.suspended_by_staff === 0) {
          const holders = await suspensions.holdersOf(trx, {
            customerId: row.customer_id,
            kind: 'sites',
            id: row.id,
          })
          if (holders.length === 0) continue
        }
        covered.push(row.id)
      }
      return covered
    },
    async restore(trx, request) {
      if (request.ids.length === 0) return []
      const writers = writersOf(request)
      // A site staff suspended stays suspended: billing restores only what billing alone kept.
      const rows = await sitesOf(trx, request.customerId)
        .where('id', 'in', request.ids)
        .where('status', '=', 'suspended')
        .where('suspended_by_staff', '=', 0)
        .execute()
      for (const row of rows) {
        await moveSite(trx, writers, row, {
          to: 'active',
          jobKind: siteJobKinds.unsuspend,
          action: 'site.unsuspend',
          details: { reason: request.reason },
        })
      }
      return rows.map((row) => row.id)
    },
    async remove(trx, request) {
      const writers = writersOf(request)
      const rows = await sitesOf(trx, request.customerId)
        .where('status', 'in', ['provisioning', 'active', 'suspended', 'failed'])
        .execute()
      // A provisioning one too: its provisioning is cancelled.
      for (const row of rows) await startSiteDeletion(trx, context, writers, row, { reason: request.reason })
      return rows.map((row) => row.id)
    },
  }
}
