// The php plugin's console page: a site's PHP version and settings (its tab, shown for sites whose type runs PHP).

import { defineConsolePages } from '../../console/kit.ts'
import { siteIsOnNode } from '../../sites/console/contract.ts'
import { SitePhpPage } from './site-php-page.tsx'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/php',
      tab: {
        of: '/sites/:id',
        label: 'PHP',
        order: 45,
        scope: 'php:read',
        // A static site runs no PHP (the API answers 409 `site_without_php`).
        shownFor: (site) => site.type !== 'static' && siteIsOnNode(site),
      },
      render: ({ id = '' }) => <SitePhpPage key={id} id={id} />,
    },
  ],
})
