// The cache plugin's console pages: a site's "Cache" tab (its page cache on or off, TTL, bypass cookies, excluded
// paths, and purges of everything or of some paths).

import { defineConsolePages } from '../../console/kit.ts'
import { SiteCachePage } from './site-cache-page.tsx'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/cache',
      scope: 'cache:read',
      tab: { of: '/sites/:id', label: 'Cache', order: 45 },
      render: ({ id = '' }) => <SiteCachePage key={id} siteId={id} />,
    },
  ],
})
