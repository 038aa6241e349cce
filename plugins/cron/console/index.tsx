// The cron plugin's console page: a site's cron jobs (its "Cron" tab).

import { defineConsolePages } from '../../console/kit.ts'
import { SiteCronPage } from './site-cron-page.tsx'
import './cron.css'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/cron',
      tab: { of: '/sites/:id', label: 'Cron', order: 45, scope: 'cron:read' },
      render: ({ id = '' }) => <SiteCronPage key={id} id={id} />,
    },
  ],
})
