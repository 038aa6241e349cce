// `/certificates`: the TLS certificates the caller sees: their names, issuer, end of validity (with a warning from
// 30 days before it), whether uploaded or issued through ACME, and state; staff see whose each is.

import {
  CursorTable,
  CustomerFilter,
  customerColumn,
  Link,
  PageHeader,
  QuerySelect,
  StatusBadge,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { certificateLabel, commonName, Expiry } from './expiry.tsx'

type Certificate = Schemas['Certificate']
type Status = Certificate['status']
type Source = 'uploaded' | 'acme'

export const sourceLabels: Readonly<Record<string, string>> = { uploaded: 'Uploaded', acme: 'ACME' }

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'expiring', label: 'Expiring' },
  { value: 'expired', label: 'Expired' },
  { value: 'issuing', label: 'Issuing' },
  { value: 'failed', label: 'Failed' },
]

const sourceOptions = [
  { value: '', label: 'Any source' },
  { value: 'uploaded', label: 'Uploaded' },
  { value: 'acme', label: 'ACME' },
]

export function CertificateListPage() {
  const { can } = useSession()
  const { query } = useLocation()
  const customerId = query.get('customerId') ?? undefined
  const status = (query.get('status') ?? undefined) as Status | undefined
  const source = (query.get('source') ?? undefined) as Source | undefined
  const canManage = can('certificate:manage')
  const newPath = `/certificates/new${customerId ? `?customerId=${encodeURIComponent(customerId)}` : ''}`
  return (
    <>
      <PageHeader
        title="Certificates"
        subtitle="TLS certificates for serving sites over HTTPS: uploaded, or issued and renewed through ACME."
        actions={
          canManage ? (
            <Link className="button" to={newPath}>
              Add certificate
            </Link>
          ) : null
        }
      />
      <div className="certificate-filters">
        <CustomerFilter />
        <div className="form-inline list-filters">
          <QuerySelect name="status" label="Status" options={statusOptions} />
          <QuerySelect name="source" label="Source" options={sourceOptions} />
        </div>
      </div>
      <CursorTable<Certificate>
        list={api.list('/api/v1/certificates', { params: { query: { customerId, status, source } } })}
        caption="Certificates"
        rowKey={(certificate) => certificate.id}
        empty={
          canManage
            ? 'No certificates yet. Upload one, or order one through ACME for your sites’ domains.'
            : 'No certificates yet.'
        }
        columns={[
          {
            header: 'Domains',
            cell: (certificate) => (
              <Link to={`/certificates/${encodeURIComponent(certificate.id)}`}>
                {certificateLabel(certificate)}
              </Link>
            ),
          },
          {
            header: 'Issuer',
            cell: (certificate) =>
              certificate.chainStatus === 'self-signed' ? 'Self-signed' : commonName(certificate.issuer),
          },
          { header: 'Valid until', cell: (certificate) => <Expiry notAfter={certificate.notAfter} /> },
          { header: 'Source', cell: (certificate) => sourceLabels[certificate.source] ?? certificate.source },
          { header: 'Status', cell: (certificate) => <StatusBadge status={certificate.status} /> },
          customerColumn,
        ]}
      />
    </>
  )
}
