// The sites plugin's part of a node's reconciliation: each `active` or `suspended` site placed on the node is
// compared with what the node holds. A site the node lacks is provisioned again (`site.restore`, its drift said with
// `site.drifted`); one in the other state is suspended or unsuspended again; a site the node holds that the panel
// does not place there is reported, never removed. Sites a job is working on are left to it.

import { jobIsLive, type PluginContext } from '../../core/index.ts'
import type { InventorySite, NodeReconciler, UnknownOnNode } from '../nodes/contract.ts'
import { siteJobKinds } from './jobs.ts'
import type { SitesTable } from './migrations.ts'
import { findSiteRow, siteRowsOnNode, toSite, updateSite } from './repository.ts'

/** The reconciler of sites. */
export function siteReconciler(context: PluginContext): NodeReconciler {
  return {
    name: 'sites',
    async reconcile(job, { node, inventory, askedAt }) {
      const rows = await siteRowsOnNode(context.db, node.id)
      const held = new Map(inventory.sites.map((site) => [site.id, site]))
      const known = new Set(rows.map((row) => row.id))
      const unknown: UnknownOnNode[] = inventory.sites
        .filter((site) => !known.has(site.id))
        .map((site) => ({ kind: 'site', name: site.id, domain: site.domain }))
      let reapplied = 0
      for (const row of rows) {
        if (row.status !== 'active' && row.status !== 'suspended') continue
        const onNode = held.get(row.id)
        if (onNode?.state === row.status) continue
        // Changed since the node was asked (provisioned, suspended meanwhile): the next reconciliation sees it.
        if (row.updated_at > askedAt) continue
        const started = await job.transaction(async (trx) => {
          const now = await findSiteRow(trx, row.id)
          if (
            !now ||
            now.status !== row.status ||
            now.node_id !== node.id ||
            now.updated_at !== row.updated_at
          )
            return false
          // Its own job works on it (a provisioning, a suspension): that job makes the node match.
          if (now.job_id && (await jobIsLive(trx, now.job_id))) return false
          const kind = onNode ? stateJob(now) : siteJobKinds.restore
          const jobId = await context.enqueueJob(trx, {
            kind,
            customerId: now.customer_id,
            subject: { type: 'site', id: now.id },
          })
          // Still missing after a restore that gave up: tried again, and said once (not at every round).
          const again = !onNode && now.drift_code === 'restore_failed'
          const missing = again ? { drift_job_id: jobId } : missingDrift(onNode, node.name, jobId)
          const moved = await updateSite(trx, now.id, { job_id: jobId, ...missing })
          await context.audit(trx, {
            action: onNode ? 'site.reapply' : 'site.restore',
            subject: { type: 'site', id: now.id },
            customerId: now.customer_id,
            details: {
              reason: onNode ? `its node serves it ${onNode.state}` : 'missing on its node',
              nodeId: node.id,
              jobId,
            },
          })
          await context.emit(trx, {
            kind: onNode || again ? 'site.updated' : 'site.drifted',
            customerId: now.customer_id,
            data: toSite(moved),
          })
          return true
        })
        if (started) reapplied++
      }
      return { reapplied, unknown }
    },
  }
}

/** The job that puts a site in its recorded state (`suspended` or `active`) on its node. */
const stateJob = (row: SitesTable) =>
  row.status === 'suspended' ? siteJobKinds.suspend : siteJobKinds.unsuspend

/** The drift of a site its node lacks, or nothing for one it holds in the other state (simply put right). */
function missingDrift(onNode: InventorySite | undefined, nodeName: string, jobId: string) {
  if (onNode) return {}
  return {
    drift_code: 'missing_on_node',
    drift_message: `The site's node ${nodeName} did not have it; it is being provisioned there again (job ${jobId}).`,
    drift_job_id: jobId,
    drift_detected_at: new Date().toISOString(),
  }
}
