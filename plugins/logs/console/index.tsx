// The logs plugin's console pages: a site's "Logs" tab (its access, error and PHP logs, filtered, read again or
// followed live).

import { defineConsolePages } from '../../console/kit.ts'
import { SiteLogsPage } from './site-logs-page.tsx'
import './logs.css'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/logs',
      scope: 'log:read',
      tab: { of: '/sites/:id', label: 'Logs', order: 55 },
      render: ({ id = '' }) => <SiteLogsPage key={id} siteId={id} />,
    },
  ],
})
