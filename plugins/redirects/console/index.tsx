// The redirects plugin's console page: a site's redirects and response headers (its "Redirects" tab), read with
// `site:read` and changed with `site:update`, as the API asks.

import { defineConsolePages } from '../../console/kit.ts'
import { SiteRedirectsPage } from './site-redirects-page.tsx'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/redirects',
      tab: { of: '/sites/:id', label: 'Redirects', order: 45, scope: 'site:read' },
      render: ({ id = '' }) => <SiteRedirectsPage key={id} id={id} />,
    },
  ],
})
