// The SFTP plugin's console page: a site's SFTP accounts (its tab). They reach the site's files, so the tab asks
// what the API asks: `site:files`.

import { defineConsolePages } from '../../console/kit.ts'
import { SiteSftpPage } from './site-sftp-page.tsx'

export default defineConsolePages({
  routes: [
    {
      path: '/sites/:id/sftp',
      tab: { of: '/sites/:id', label: 'SFTP', order: 40, scope: 'site:files' },
      render: ({ id = '' }) => <SiteSftpPage key={id} id={id} />,
    },
  ],
})
