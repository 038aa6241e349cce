// `/certificates/new`: two ways to a certificate, as tabs: upload one (with its key and chain), or order one
// through ACME for the customer's sites' domains (`?method=acme`).

import { Link, PageHeader, Section, useLocation, usePluginCapabilities } from '../../console/kit.ts'
import { AcmeOrderForm } from './acme-form.tsx'
import { UploadCertificateForm } from './upload-form.tsx'

export function CertificateNewPage() {
  const { query } = useLocation()
  // ACME is offered only where the installation orders certificates (capabilities of the certificates plugin).
  const acmeOn = usePluginCapabilities('certificates')?.acme === true
  const acme = acmeOn && query.get('method') === 'acme'
  const customerId = query.get('customerId')
  const to = (method: string | null) => {
    const params = new URLSearchParams()
    if (method) params.set('method', method)
    if (customerId) params.set('customerId', customerId)
    const search = params.toString()
    return `/certificates/new${search ? `?${search}` : ''}`
  }
  return (
    <>
      <PageHeader title="Add certificate" subtitle={<Link to="/certificates">Back to certificates</Link>} />
      <nav className="tabs" aria-label="How to add a certificate">
        <Link to={to(null)} aria-current={acme ? undefined : 'page'}>
          Upload
        </Link>
        {acmeOn ? (
          <Link to={to('acme')} aria-current={acme ? 'page' : undefined}>
            Order through ACME
          </Link>
        ) : null}
      </nav>
      {acme ? (
        <Section title="Order through ACME">
          <AcmeOrderForm />
        </Section>
      ) : (
        <Section title="Upload a certificate">
          <UploadCertificateForm />
        </Section>
      )}
    </>
  )
}
