// The staging plugin's console page: a site's staging copy (its tab), made, opened, pushed to live and undone.

import { defineConsolePages } from '../../console/kit.ts'
import { SiteStagingPage } from './site-staging-page.tsx'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/staging',
      tab: { of: '/sites/:id', label: 'Staging', order: 55, scope: 'staging:read' },
      render: ({ id = '' }) => <SiteStagingPage key={id} id={id} />,
    },
  ],
})
