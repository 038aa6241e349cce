// The certificates plugin's console pages: the TLS certificates customers upload or order through ACME, and a
// site's certificate (its tab).

import { defineConsolePages } from '../../console/kit.ts'
import { CertificateDetailPage } from './certificate-detail.tsx'
import { CertificateListPage } from './certificate-list.tsx'
import { CertificateNewPage } from './certificate-new.tsx'
import './certificates.css'
import { SiteCertificatePage } from './site-certificate-page.tsx'

export default defineConsolePages({
  navigation: [
    {
      group: 'Hosting',
      label: 'Certificates',
      to: '/certificates',
      scope: 'certificate:read',
      audience: 'both',
      order: 400,
    },
  ],
  routes: [
    { path: '/certificates', render: () => <CertificateListPage /> },
    { path: '/certificates/new', render: () => <CertificateNewPage /> },
    { path: '/certificates/:id', render: ({ id = '' }) => <CertificateDetailPage key={id} id={id} /> },
    {
      path: '/sites/:id/certificate',
      tab: { of: '/sites/:id', label: 'Certificate', order: 30, scope: 'certificate:read' },
      render: ({ id = '' }) => <SiteCertificatePage key={id} id={id} />,
    },
  ],
})
