// The sites plugin's part of a node's reconciliation: each `active` or `suspended` site placed on the node is
// compared with what the node holds. A site the node lacks is provisioned again (`site.restore`, its drift said with
// `site.drifted`); one in the other state is suspended or unsuspended again; a site the node holds that the panel
// does not place there is reported, never removed. Sites a job is working on are left to it.

import { type JobRun, jobIsLive, type PluginContext } from '../../core/index.ts'
import type { InventorySite, NodeReconciler, UnknownOnNode } from '../nodes/contract.ts'
import { noDrift, siteJobKinds } from './jobs.ts'
import type { SitesTable } from './migrations.ts'
import { findSiteRow, siteRowsOnNode, toSite, updateSite } from './repository.ts'

/** The reconciler of sites. */
export function siteReconciler(context: PluginContext): NodeReconciler {
  return {
    name: 'sites',
    async reconcile(job, { node, inventory, askedAt, staffAsked }) {
      const rows = await siteRowsOnNode(context.db, node.id)
      const held = new Map(inventory.sites.map((site) => [site.id, site]))
      const known = new Set(rows.map((row) => row.id))
      const unknown: UnknownOnNode[] = inventory.sites
        .filter((site) => !known.has(site.id))
        .map((site) => ({ kind: 'site', name: site.id, domain: site.domain }))
      const placed = rows.filter((row) => row.status === 'active' || row.status === 'suspended')
      // Those the node was asked about (one provisioned since may not be in its answer yet).
      const compared = placed.filter((row) => row.updated_at <= askedAt)
      // None of its sites there: rebuilt, or its disk not mounted yet. Put back only when staff ask (NodeReport).
      if (!staffAsked && compared.length > 0 && compared.every((row) => !held.has(row.id))) {
        for (const row of compared) await holdBack(job, row, node.name, node.id)
        return { reapplied: 0, unknown, held: compared.length }
      }
      let reapplied = 0
      for (const row of placed) {
        const onNode = held.get(row.id)
        // Held back while its node held nothing (a disk mounted late), and there again: nothing was lost.
        if (onNode && row.drift_code === 'missing_on_node' && row.drift_job_id === null)
          await clearHeld(job, row)
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
          // Still missing after a restore that gave up: tried again, and said once (not at every round); one held
          // back (its node had lost every site) was said when it was found.
          const again = !onNode && now.drift_code === 'restore_failed'
          const said = again || (!onNode && now.drift_code === 'missing_on_node')
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
            kind: onNode || said ? 'site.updated' : 'site.drifted',
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

  /** Clears the mark {@link holdBack} left on a site its node holds again. */
  async function clearHeld(job: JobRun, row: SitesTable): Promise<void> {
    await job.transaction(async (trx) => {
      const now = await findSiteRow(trx, row.id)
      if (now?.drift_code !== 'missing_on_node' || now.drift_job_id !== null) return
      const cleared = await updateSite(trx, now.id, noDrift)
      await context.emit(trx, { kind: 'site.updated', customerId: now.customer_id, data: toSite(cleared) })
    })
  }

  /**
   * Marks a site its node lost along with all the others `missing_on_node`, nothing started: said once (a site
   * already marked, or one a job works on, is left as it is).
   */
  async function holdBack(job: JobRun, row: SitesTable, nodeName: string, nodeId: string): Promise<void> {
    await job.transaction(async (trx) => {
      const now = await findSiteRow(trx, row.id)
      // Changed since it was read (a staff round beside this one put it back meanwhile): this round's answer is old.
      if (!now || now.updated_at !== row.updated_at || now.node_id !== nodeId) return
      if (now.drift_code === 'missing_on_node') return
      if (now.job_id && (await jobIsLive(trx, now.job_id))) return
      const marked = await updateSite(trx, now.id, {
        drift_code: 'missing_on_node',
        drift_message: `The site's node ${nodeName} holds none of the panel's sites: rebuilt, or its disk not mounted yet. Nothing is put back until platform staff, having looked at the node, ask for its reconciliation (POST /nodes/${nodeId}/reconcile).`,
        drift_job_id: null,
        drift_detected_at: new Date().toISOString(),
      })
      await context.emit(trx, { kind: 'site.drifted', customerId: now.customer_id, data: toSite(marked) })
    })
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
