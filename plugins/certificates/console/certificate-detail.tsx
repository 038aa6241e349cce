// `/certificates/:id`: a certificate's facts (subject, names, issuer, validity, fingerprint, the sites using it),
// its issuance followed live while an ACME one is ordered or renewed, renewing an ACME one, and deleting it.

import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ConfirmButton,
  CustomerName,
  ErrorNotice,
  Facts,
  formatTime,
  JobProgress,
  Link,
  Loading,
  navigate,
  PageHeader,
  Section,
  StatusBadge,
  unwrap,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { sourceLabels } from './certificate-list.tsx'
import { CertificateSites } from './certificate-sites.tsx'
import { certificateLabel, Expiry } from './expiry.tsx'

type Certificate = Schemas['Certificate']

export function CertificateDetailPage({ id }: { id: string }) {
  const { can } = useSession()
  const [followed, follow] = useState<string | null>(null)
  const query = useQuery(api.query('/api/v1/certificates/{id}', { params: { path: { id } } }))
  const renew = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/certificates/{id}/renew', { params: { path: { id } } })),
    onSuccess: (certificate) => {
      if (certificate.jobId) follow(certificate.jobId)
    },
  })
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/certificates/{id}', { params: { path: { id } } })),
    onSuccess: () => navigate('/certificates'),
  })
  if (query.isPending) return <Loading />
  if (query.isError)
    return (
      <>
        <PageHeader title="Certificate" subtitle={<Link to="/certificates">Back to certificates</Link>} />
        <ErrorNotice error={query.error} />
      </>
    )
  const certificate: Certificate = query.data
  const manage = can('certificate:manage')
  const jobId = followed ?? (certificate.status === 'issuing' ? certificate.jobId : null)
  const lastError = certificate.acme?.lastError ?? null
  return (
    <>
      <PageHeader
        title={`Certificate ${certificateLabel(certificate)}`}
        subtitle={<Link to="/certificates">Back to certificates</Link>}
        actions={
          manage ? (
            <>
              {certificate.source === 'acme' ? (
                <button
                  type="button"
                  className="button secondary"
                  onClick={() => renew.mutate()}
                  disabled={renew.isPending || certificate.status === 'issuing'}
                >
                  {certificate.status === 'failed' ? 'Order again' : 'Renew now'}
                </button>
              ) : null}
              <ConfirmButton
                confirmLabel="Confirm delete"
                onConfirm={() => remove.mutate()}
                disabled={remove.isPending}
              >
                Delete certificate
              </ConfirmButton>
            </>
          ) : null
        }
      />
      {renew.isError ? <ErrorNotice error={renew.error} /> : null}
      {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      {jobId ? (
        <Section title={certificate.status === 'issuing' ? 'Issuing' : 'Renewing'}>
          <JobProgress key={jobId} jobId={jobId} />
        </Section>
      ) : null}
      {lastError ? (
        <div className="notice notice-error" role="alert">
          <p>
            <strong>The last issuance failed</strong> ({formatTime(lastError.at)}): {lastError.detail}
          </p>
          <p className="muted">
            <code>{lastError.type}</code>
          </p>
        </div>
      ) : null}
      <Section title="Details">
        <Facts
          items={[
            ['Subject', certificate.subject ?? '—'],
            [
              'Names (subjectAltName)',
              certificate.names.length > 0
                ? certificate.names.join(', ')
                : certificate.acme
                  ? `Asked for: ${certificate.acme.domains.join(', ')}`
                  : '—',
            ],
            [
              'Issuer',
              certificate.chainStatus === 'self-signed'
                ? `${certificate.issuer} (self-signed)`
                : (certificate.issuer ?? '—'),
            ],
            ['Valid from', formatTime(certificate.notBefore)],
            ['Valid until', <Expiry key="until" notAfter={certificate.notAfter} />],
            ['Status', <StatusBadge key="status" status={certificate.status} />],
            ['Source', sourceLabels[certificate.source] ?? certificate.source],
            ['Key', certificate.keyType ?? '—'],
            [
              'Chain',
              certificate.chainStatus === 'complete'
                ? 'Complete'
                : certificate.chainStatus === 'self-signed'
                  ? 'Self-signed'
                  : '—',
            ],
            ['Serial', certificate.serial ? <code key="serial">{certificate.serial}</code> : '—'],
            [
              'SHA-256 fingerprint',
              certificate.fingerprintSha256 ? (
                <code key="fingerprint">{certificate.fingerprintSha256}</code>
              ) : (
                '—'
              ),
            ],
            ['Customer', <CustomerName key="customer" id={certificate.customerId} />],
            ['Added', formatTime(certificate.createdAt)],
          ]}
        />
      </Section>
      <CertificateSites siteIds={certificate.sites} />
      {certificate.certificatePem ? (
        <Section title="PEM">
          <details>
            <summary>Certificate PEM</summary>
            <pre className="pem-block">{certificate.certificatePem}</pre>
          </details>
          {certificate.chainPem ? (
            <details>
              <summary>Chain PEM</summary>
              <pre className="pem-block">{certificate.chainPem}</pre>
            </details>
          ) : null}
          <p className="muted">The private key is sealed in the panel and never shown.</p>
        </Section>
      ) : null}
    </>
  )
}
