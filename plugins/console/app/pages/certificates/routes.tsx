// The certificates area's pages: the TLS certificates customers upload or order through ACME.

import type { RouteDefinition } from '../../router.tsx'
import { CertificateDetailPage } from './certificate-detail.tsx'
import { CertificateListPage } from './certificate-list.tsx'
import { CertificateNewPage } from './certificate-new.tsx'
import './certificates.css'

export const certificateRoutes: RouteDefinition[] = [
  { path: '/certificates', render: () => <CertificateListPage /> },
  { path: '/certificates/new', render: () => <CertificateNewPage /> },
  { path: '/certificates/:id', render: ({ id = '' }) => <CertificateDetailPage key={id} id={id} /> },
]
