// `/sites/:id/certificate`: the certificate the site serves over HTTPS, attaching one of its customer's
// certificates (or another in its place), and detaching it.

import { useQuery } from '@tanstack/react-query'
import {
  ActionError,
  ApiProblem,
  ConfirmButton,
  daysUntil,
  EmptyState,
  ErrorNotice,
  Facts,
  FormFooter,
  formatTime,
  JobProgress,
  Link,
  Loading,
  Section,
  SelectField,
  StatusBadge,
  textOf,
  unwrap,
  useAction,
  useApiForm,
  useSession,
} from '../../console/kit.ts'
import { SiteFrame, type SiteSchemas } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'

type Site = SiteSchemas['Site']
type SiteCertificate = Schemas['SiteCertificate']
type Certificate = Schemas['Certificate']

/** When a certificate ends, and how far off that is. */
function expiryOf(notAfter: string | null): string {
  if (!notAfter) return '—'
  const days = daysUntil(notAfter)
  const when = days < 0 ? `expired ${-days} days ago` : days === 0 ? 'expires today' : `${days} days left`
  return `${formatTime(notAfter)} (${when})`
}

function useAttachment(siteId: string) {
  const attachment = api.query('/api/v1/sites/{id}/certificate', { params: { path: { id: siteId } } })
  return useQuery({
    queryKey: attachment.queryKey,
    queryFn: async (): Promise<SiteCertificate | null> => {
      try {
        return await attachment.queryFn()
      } catch (error) {
        // 404 is the API's way of saying the site serves no certificate.
        if (error instanceof ApiProblem && error.status === 404) return null
        throw error
      }
    },
  })
}

function Attached({ site, attachment }: { site: Site; attachment: SiteCertificate }) {
  const session = useSession()
  const certificate = useQuery(
    api.query('/api/v1/certificates/{id}', { params: { path: { id: attachment.certificateId } } }),
  )
  const detach = useAction(() =>
    unwrap(api.DELETE('/api/v1/sites/{id}/certificate', { params: { path: { id: site.id } } })),
  )
  const live = attachment.status === 'installing' || attachment.status === 'removing'
  return (
    <Section
      title="Certificate in use"
      actions={
        session.can('certificate:manage') && attachment.status !== 'removing' ? (
          <ConfirmButton
            confirmLabel="Confirm detach"
            disabled={detach.isPending}
            onConfirm={() => detach.mutate(undefined)}
          >
            Detach certificate
          </ConfirmButton>
        ) : null
      }
    >
      <Facts
        items={[
          [
            'Certificate',
            <Link key="link" to={`/certificates/${encodeURIComponent(attachment.certificateId)}`}>
              {certificate.data?.subject ?? attachment.certificateId}
            </Link>,
          ],
          ['On the node', <StatusBadge key="status" status={attachment.status} />],
          ['Names', certificate.data ? certificate.data.names.join(', ') || '—' : '…'],
          [
            'Certificate status',
            certificate.data ? (
              <StatusBadge key="certificate-status" status={certificate.data.status} />
            ) : (
              '…'
            ),
          ],
          ['Expires', certificate.data ? expiryOf(certificate.data.notAfter) : '…'],
          ['Issuer', certificate.data?.issuer ?? '—'],
          [
            'Fingerprint served',
            attachment.installedFingerprint ? (
              <code key="fingerprint">{attachment.installedFingerprint}</code>
            ) : (
              '—'
            ),
          ],
          ['Updated', formatTime(attachment.updatedAt)],
        ]}
      />
      {certificate.isError ? <ErrorNotice error={certificate.error} /> : null}
      {attachment.jobId && live && session.can('job:read') ? (
        <JobProgress key={attachment.jobId} jobId={attachment.jobId} />
      ) : null}
      <ActionError action={detach} />
    </Section>
  )
}

function optionOf(certificate: Certificate) {
  const names = certificate.names.join(', ') || certificate.subject || certificate.id
  const until = certificate.notAfter ? `, until ${formatTime(certificate.notAfter)}` : ''
  return { value: certificate.id, label: `${names} (${certificate.status}${until})` }
}

function AttachForm({ site }: { site: Site }) {
  const certificates = useQuery(
    api.query('/api/v1/certificates', { params: { query: { customerId: site.customerId, limit: 100 } } }),
  )
  const form = useApiForm((data) =>
    unwrap(
      api.PUT('/api/v1/sites/{id}/certificate', {
        params: { path: { id: site.id } },
        body: { certificateId: textOf(data, 'certificateId') ?? '' },
      }),
    ),
  )
  if (certificates.isPending) return <Loading />
  if (certificates.isError) return <ErrorNotice error={certificates.error} />
  if (certificates.data.items.length === 0)
    return (
      <EmptyState>
        The site’s customer has no certificates yet. Upload or order one under{' '}
        <Link to="/certificates">Certificates</Link>, then attach it here.
      </EmptyState>
    )
  // Usable certificates first: an expired or failed one is listed, but the API will refuse it.
  const usable = (certificate: Certificate) =>
    certificate.status === 'active' || certificate.status === 'expiring'
  const sorted = [...certificates.data.items].sort((a, b) => Number(usable(b)) - Number(usable(a)))
  return (
    <form onSubmit={form.submit} noValidate>
      <SelectField
        form={form}
        name="certificateId"
        label="Certificate"
        hint={`One of its names must cover ${site.domain}.`}
        options={[{ value: '', label: 'Choose a certificate' }, ...sorted.map(optionOf)]}
      />
      <FormFooter form={form}>Attach certificate</FormFooter>
    </form>
  )
}

export function SiteCertificatePage({ id }: { id: string }) {
  const session = useSession()
  const attachment = useAttachment(id)
  return (
    <SiteFrame id={id} title="Certificate">
      {(site) => (
        <>
          {attachment.isPending ? (
            <Loading />
          ) : attachment.isError ? (
            <ErrorNotice error={attachment.error} />
          ) : attachment.data ? (
            <Attached site={site} attachment={attachment.data} />
          ) : (
            <Section title="Certificate in use">
              <EmptyState>This site is served over plain HTTP only: no certificate is attached.</EmptyState>
            </Section>
          )}
          {session.can('certificate:manage') && attachment.data?.status !== 'removing' ? (
            <Section title={attachment.data ? 'Use another certificate' : 'Attach a certificate'}>
              <AttachForm site={site} />
            </Section>
          ) : null}
        </>
      )}
    </SiteFrame>
  )
}
