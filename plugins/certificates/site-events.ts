// What the plugin does when sites change: a deleted site's attachment goes with it (its node removed the files
// with the site), and a site whose new domain its certificate does not cover stops serving it.

import type { OutboxEvent, PluginContext, Trx } from '../../core/index.ts'
import { namesCover } from './certificate-checks.ts'
import { moveAttachment } from './lifecycle.ts'
import { deleteAttachment, findAttachment, findCertificateRow, recountSites } from './repository.ts'

/** Forgets a deleted site's attachment (in its deletion job; again after a crash, when there is none left). */
export async function removeAttachmentOf(trx: Trx, siteId: string): Promise<void> {
  const row = await findAttachment(trx, siteId)
  if (!row) return
  await deleteAttachment(trx, siteId)
  await recountSites(trx, [row.certificate_id])
}

/** Handles `site.updated`: detaches a certificate whose names no longer cover the site's domain. */
export async function siteUpdated(context: PluginContext, trx: Trx, event: OutboxEvent): Promise<void> {
  const siteId = String(event.data.id)
  const domain = String(event.data.domain)
  const row = await findAttachment(trx, siteId)
  if (!row || row.status === 'removing') return
  const certificate = await findCertificateRow(trx, row.certificate_id)
  if (certificate && namesCover(JSON.parse(certificate.names) as string[], domain)) return
  await moveAttachment(trx, context, row, {
    siteId,
    customerId: row.customer_id,
    nodeId: row.node_id,
    certificateId: row.certificate_id,
    status: 'removing',
  })
  await context.audit(trx, {
    action: 'site_certificate.detach',
    subject: { type: 'site', id: siteId },
    customerId: row.customer_id,
    details: {
      certificateId: row.certificate_id,
      reason: 'the site’s new domain is not among its names',
      domain,
    },
  })
}
