// The certificates plugin's part of a node's reconciliation: a site whose attachment says its certificate is
// installed, but whose node serves another or none, gets its `certificate.install` job again. A site the node lacks
// altogether is first provisioned there again by the sites plugin (`site.restore`); its certificate follows once that
// is done (`site.updated` with `drift.code` `content_lost`: siteRestored below).

import { jobIsLive, type OutboxEvent, type PluginContext, type Trx } from '../../core/index.ts'
import type { NodeReconciler } from '../nodes/contract.ts'
import { nodeFingerprint } from './install-job.ts'
import { moveAttachment } from './lifecycle.ts'
import type { SiteCertificatesTable } from './migrations.ts'
import { attachmentsOnNode, findAttachment } from './repository.ts'

/** The reconciler of sites' certificates. */
export function certificateReconciler(context: PluginContext): NodeReconciler {
  return {
    name: 'certificates',
    async reconcile(job, { node, inventory }) {
      const served = new Map(inventory.sites.map((site) => [site.id, site.certificate]))
      let reapplied = 0
      for (const row of await attachmentsOnNode(context.db, node.id)) {
        // Installing or removing: its job is on it; failed: left as it is, for people to see.
        if (row.status !== 'installed' || row.installed_fingerprint === null) continue
        // Not on the node at all: the site is put back first, and its certificate after it (siteRestored).
        if (!served.has(row.site_id)) continue
        if (served.get(row.site_id) === nodeFingerprint(row.installed_fingerprint)) continue
        const started = await job.transaction(async (trx) => {
          const now = await findAttachment(trx, row.site_id)
          if (!now || now.revision !== row.revision || now.status !== 'installed') return false
          if (now.job_id && (await jobIsLive(trx, now.job_id))) return false
          await reinstall(context, trx, now, 'its node serves another certificate, or none')
          return true
        })
        if (started) reapplied++
      }
      return { reapplied }
    },
  }
}

/**
 * Handles `site.updated` of a site provisioned again on its node from nothing (`drift.code` `content_lost`): its
 * certificate, installed before the node lost it, is installed again. Once: an attachment changed since the drift was
 * found is left as it is (a later change of the site sends the same drift again).
 */
export async function siteRestored(context: PluginContext, trx: Trx, event: OutboxEvent): Promise<void> {
  const drift = event.data.drift as { code?: string; detectedAt?: string } | null | undefined
  if (drift?.code !== 'content_lost' || !drift.detectedAt) return
  const row = await findAttachment(trx, String(event.data.id))
  if (row?.status !== 'installed' || row.updated_at > drift.detectedAt) return
  await reinstall(context, trx, row, 'the site was provisioned again on its node')
}

/** Installs an attachment's certificate on its site's node again (a new `certificate.install` job), audited. */
async function reinstall(context: PluginContext, trx: Trx, row: SiteCertificatesTable, reason: string) {
  const moved = await moveAttachment(trx, context, row, {
    siteId: row.site_id,
    customerId: row.customer_id,
    nodeId: row.node_id,
    certificateId: row.certificate_id,
    status: 'installing',
  })
  await context.audit(trx, {
    action: 'certificate.reinstall',
    subject: { type: 'site', id: row.site_id },
    customerId: row.customer_id,
    details: { certificateId: row.certificate_id, reason, nodeId: row.node_id, jobId: moved.job_id },
  })
}
