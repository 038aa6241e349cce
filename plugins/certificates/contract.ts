// The certificates plugin's public contract: the certificate and a site's attachment as the API shows them, and
// the plugin's scopes.

import { areaScopes, enumOf, type Static, t } from '../../core/index.ts'

/**
 * The plugin's scopes: `certificate:read` and `certificate:manage`, held by owners, admins and developers (a
 * customer's hosting is the developers' work too).
 */
export const certificateScopes = areaScopes('certificate', 'certificates', ['owner', 'admin', 'developer'], {
  manage: 'Upload, order, attach and delete certificates',
})

/** Where a certificate came from. */
export const certificateSources = ['uploaded', 'acme'] as const
export type CertificateSource = (typeof certificateSources)[number]

/**
 * States of a certificate: `issuing` and `failed` only for ACME ones that were never issued; `expiring` within 30
 * days of `notAfter`, `expired` after it (set by the daily expiry check).
 */
export const certificateStatuses = ['issuing', 'active', 'expiring', 'expired', 'failed'] as const
export type CertificateStatus = (typeof certificateStatuses)[number]

/** States of a site's certificate on its node. */
export const attachmentStatuses = ['installing', 'installed', 'removing', 'failed'] as const
export type AttachmentStatus = (typeof attachmentStatuses)[number]

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T, description: string) =>
  t.Union([schema, t.Null()], { description })

/** What went wrong the last time an ACME certificate was issued or renewed. */
export const AcmeError = t.Object(
  {
    type: t.String({
      description:
        'The ACME problem type (`urn:ietf:params:acme:error:unauthorized`, …), or `about:blank` when the failure was not the ACME server’s answer (it could not be reached).',
    }),
    detail: t.String({ description: 'What the ACME server (or the panel) said.' }),
    at: t.String({ format: 'date-time' }),
  },
  { $id: 'AcmeError' },
)
export type AcmeError = Static<typeof AcmeError>

export const Certificate = t.Object(
  {
    id: t.String({ description: 'Identifier, `crt_…`.' }),
    customerId: t.String({ description: 'The owning customer, `cus_…`.' }),
    source: enumOf(certificateSources, {
      description: '`uploaded` by the customer, or issued (and renewed) through ACME (`acme`).',
    }),
    status: enumOf(certificateStatuses, {
      description:
        '`issuing` until an ACME certificate is first issued (`failed` if that gave up); then `active`, `expiring` from 30 days before `notAfter`, `expired` after it.',
    }),
    subject: nullable(t.String(), 'The subject’s distinguished name: `CN=shop.example.com`.'),
    names: t.Array(t.String(), {
      description:
        'The DNS names it is valid for (its subjectAltName), lower-case; empty while an ACME certificate is issuing.',
    }),
    issuer: nullable(t.String(), 'The issuer’s distinguished name.'),
    serial: nullable(t.String(), 'The serial number in upper-case hex.'),
    notBefore: nullable(t.String({ format: 'date-time' }), 'Start of validity.'),
    notAfter: nullable(t.String({ format: 'date-time' }), 'End of validity.'),
    fingerprintSha256: nullable(
      t.String(),
      'SHA-256 of the certificate, `AB:CD:…`, as `openssl x509 -fingerprint -sha256` prints it.',
    ),
    keyType: nullable(t.String(), 'The key: `rsa-2048`, `rsa-4096`, `ec-p256`, `ec-p384`, `ec-p521`.'),
    chainStatus: nullable(
      t.Union([t.Literal('complete'), t.Literal('self-signed')]),
      '`complete`: the chain leads to a root; `self-signed`: accepted as such on request.',
    ),
    certificatePem: nullable(t.String(), 'The certificate (public), one PEM block.'),
    chainPem: nullable(
      t.String(),
      'The intermediates served after it, issuer after subject, PEM blocks (empty for a self-signed one).',
    ),
    sites: t.Array(t.String(), { description: 'The sites using it, `site_…`.' }),
    acme: nullable(
      t.Object({
        domains: t.Array(t.String(), { description: 'The domains asked for.' }),
        lastError: nullable(AcmeError, 'Why the last issuance or renewal failed; null after a success.'),
      }),
      'For ACME certificates: what was asked and how the last issuance went; null for uploaded ones.',
    ),
    jobId: nullable(t.String(), 'The latest issuance or renewal job, `job_…` (ACME certificates).'),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Certificate' },
)
export type Certificate = Static<typeof Certificate>

/** A site's certificate: which one it serves over HTTPS, and whether its node has it yet. */
export const SiteCertificate = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    certificateId: t.String({ description: 'The certificate, `crt_…`.' }),
    status: enumOf(attachmentStatuses, {
      description:
        '`installing` until the node serves it, then `installed`; `removing` after `DELETE` until the node stops serving it; `failed` when the node refused it.',
    }),
    installedFingerprint: nullable(
      t.String(),
      'The fingerprint (`AB:CD:…`) of the certificate the node serves for the site now; null before the first install.',
    ),
    jobId: nullable(t.String(), 'The latest `certificate.install` job for the site, `job_…`.'),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'SiteCertificate' },
)
export type SiteCertificate = Static<typeof SiteCertificate>

/** What `certificate.expiring` carries. */
export const ExpiringCertificate = t.Object(
  {
    certificate: Certificate,
    daysLeft: t.Integer({ description: 'Whole days until `notAfter`.' }),
    threshold: t.Union([t.Literal(30), t.Literal(14), t.Literal(7)], {
      description: 'The notice this is: 30, 14 or 7 days before expiry (each sent once).',
    }),
  },
  { $id: 'ExpiringCertificate' },
)

/** What `certificate.failed` carries. */
export const FailedIssuance = t.Object(
  { certificate: Certificate, error: AcmeError },
  { $id: 'FailedIssuance' },
)
