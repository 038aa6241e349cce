// The sites area's pages: the list, the create form, and each site's overview, certificate, SFTP and WordPress
// pages (its files and terminal pages belong to the files area).

import type { RouteDefinition } from '../../router.tsx'
import { NewSitePage } from './new-site-page.tsx'
import { SiteCertificatePage } from './site-certificate-page.tsx'
import { SitePage } from './site-page.tsx'
import { SiteSftpPage } from './site-sftp-page.tsx'
import { SiteWordPressPage } from './site-wordpress-page.tsx'
import { SitesPage } from './sites-page.tsx'
import './sites.css'

export const siteRoutes: RouteDefinition[] = [
  { path: '/sites', render: () => <SitesPage /> },
  // Before `/sites/:id`, which would otherwise take `new` for an id.
  { path: '/sites/new', render: () => <NewSitePage /> },
  { path: '/sites/:id', render: ({ id = '' }) => <SitePage key={id} id={id} /> },
  { path: '/sites/:id/certificate', render: ({ id = '' }) => <SiteCertificatePage key={id} id={id} /> },
  { path: '/sites/:id/sftp', render: ({ id = '' }) => <SiteSftpPage key={id} id={id} /> },
  { path: '/sites/:id/wordpress', render: ({ id = '' }) => <SiteWordPressPage key={id} id={id} /> },
]
