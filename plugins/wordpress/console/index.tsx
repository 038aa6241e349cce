// The WordPress plugin's console page: a WordPress site's core, plugins, themes, users and search-replace (its tab,
// shown for WordPress sites). Its operations run code in the site, so the tab asks what the API asks: `site:shell`.

import { defineConsolePages } from '../../console/kit.ts'
import { siteIsOnNode } from '../../sites/console/contract.ts'
import { SiteWordPressPage } from './site-wordpress-page.tsx'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/wordpress',
      tab: {
        of: '/sites/:id',
        label: 'WordPress',
        order: 50,
        scope: 'site:shell',
        shownFor: (site) => site.type === 'wordpress' && siteIsOnNode(site),
      },
      render: ({ id = '' }) => <SiteWordPressPage key={id} id={id} />,
    },
  ],
})
