// Changes every route and job makes the same way: a site's attachment moved (and its node's job started), and a
// certificate's event with the certificate as the API shows it.

import type { AuditInput, EventInput, JobRequest, Trx } from '../../core/index.ts'
import type { CertificatesTable, SiteCertificatesTable } from './migrations.ts'
import { putAttachment, recountSites, toCertificate, updateCertificate } from './repository.ts'

/** The plugin's job kinds. */
export const certificateJobKinds = {
  /** Makes a site's node serve the site's certificate, or none (subject: the site). */
  install: 'certificate.install',
  /** Issues or renews an ACME certificate (subject: the certificate). */
  issue: 'certificate.issue',
  /** Marks certificates expiring or expired, sends the notices and starts ACME renewals (the installation's). */
  expiry: 'certificate.expiry',
} as const

/** Who writes: a route's caller, or a job under whoever started it. */
export interface Writers {
  enqueueJob(trx: Trx, job: JobRequest): Promise<string>
  audit(trx: Trx, entry: AuditInput): Promise<void>
  emit(trx: Trx, event: EventInput): Promise<void>
}

/** Puts `kind` with the certificate as the API shows it in the outbox. */
export async function emitCertificate(
  trx: Trx,
  writers: Pick<Writers, 'emit'>,
  row: CertificatesTable,
  kind: string,
  extra: Readonly<Record<string, unknown>> | null = null,
): Promise<void> {
  const certificate = toCertificate(row)
  await writers.emit(trx, {
    kind,
    customerId: row.customer_id,
    data: extra ? { certificate, ...extra } : certificate,
  })
}

/** What a site's attachment is to become. */
export interface WantedAttachment {
  readonly siteId: string
  readonly customerId: string
  readonly nodeId: string
  readonly certificateId: string
  /** `installing` to serve the certificate, `removing` to stop serving any. */
  readonly status: 'installing' | 'removing'
}

/**
 * Moves a site's attachment to `wanted` (a new revision) and starts the site's `certificate.install` job, which
 * makes the node follow; the certificates' `sites` are recounted. The row after.
 */
export async function moveAttachment(
  trx: Trx,
  writers: Pick<Writers, 'enqueueJob'>,
  previous: SiteCertificatesTable | undefined,
  wanted: WantedAttachment,
): Promise<SiteCertificatesTable> {
  const jobId = await writers.enqueueJob(trx, {
    kind: certificateJobKinds.install,
    customerId: wanted.customerId,
    subject: { type: 'site', id: wanted.siteId },
  })
  const row = await putAttachment(trx, {
    site_id: wanted.siteId,
    customer_id: wanted.customerId,
    node_id: wanted.nodeId,
    certificate_id: wanted.certificateId,
    status: wanted.status,
    revision: (previous?.revision ?? 0) + 1,
    installed_fingerprint: previous?.installed_fingerprint ?? null,
    job_id: jobId,
  })
  await recountSites(trx, [wanted.certificateId, ...(previous ? [previous.certificate_id] : [])])
  return row
}

/** Starts the `certificate.issue` job of an ACME certificate (its first issuance, or a renewal); the row after. */
export async function startIssuance(
  trx: Trx,
  writers: Pick<Writers, 'enqueueJob'>,
  row: CertificatesTable,
): Promise<CertificatesTable> {
  const jobId = await writers.enqueueJob(trx, {
    kind: certificateJobKinds.issue,
    customerId: row.customer_id,
    subject: { type: 'certificate', id: row.id },
  })
  return updateCertificate(trx, row.id, { job_id: jobId, issuing_job: jobId })
}
