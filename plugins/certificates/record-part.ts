// The certificate a site serves, in every backup's record of the site (`backups.siteRecordParts`): which one was
// attached (its id, names and expiry), never its key.

import type { SiteRecordPart } from '../backups/contract.ts'
import { findAttachment, findCertificateRow } from './repository.ts'

export const certificateRecordPart: SiteRecordPart = {
  name: 'certificate',
  async read(db, siteId) {
    const attachment = await findAttachment(db, siteId)
    if (!attachment) return null
    const certificate = await findCertificateRow(db, attachment.certificate_id)
    return {
      certificateId: attachment.certificate_id,
      status: attachment.status,
      source: certificate?.source ?? null,
      names: certificate ? (JSON.parse(certificate.names) as string[]) : [],
      fingerprintSha256: certificate?.fingerprint ?? null,
      notAfter: certificate?.not_after ?? null,
    }
  },
}
