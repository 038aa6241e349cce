// The sites plugin's console pages: the list, the create form, and each site's overview, the first of the site's
// tabs (other plugins add theirs: files, terminal, certificate, SFTP, WordPress); and the dashboard's flag of failed
// sites.

import { defineConsolePages } from '../../console/kit.ts'
import { FailedSitesNotice } from './failed-sites-notice.tsx'
import { NewSitePage } from './new-site-page.tsx'
import { SitePage } from './site-page.tsx'
import { SitesPage } from './sites-page.tsx'
import './sites.css'

export default defineConsolePages({
  navigation: [
    { group: 'Hosting', label: 'Sites', to: '/sites', scope: 'site:read', audience: 'both', order: 200 },
  ],
  // The dashboard flags sites whose setup gave up.
  notices: [{ name: 'failed-sites', scope: 'site:read', render: () => <FailedSitesNotice /> }],
  routes: [
    { path: '/sites', render: () => <SitesPage /> },
    { path: '/sites/new', render: () => <NewSitePage /> },
    {
      path: '/sites/:id',
      tab: { of: '/sites/:id', label: 'Overview', order: 0 },
      render: ({ id = '' }) => <SitePage key={id} id={id} />,
    },
  ],
})
