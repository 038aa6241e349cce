// The DNS zones plugin's console pages: the zones a caller sees (and a new one), and a zone's records.

import { defineConsolePages } from '../../../plugins/console/kit.ts'
import { ZonePage } from './zone-page.tsx'
import { ZonesPage } from './zones-page.tsx'

export default defineConsolePages({
  navigation: [
    { group: 'Hosting', label: 'DNS zones', to: '/dns-zones', scope: 'dns:read', audience: 'both' },
  ],
  routes: [
    { path: '/dns-zones', scope: 'dns:read', render: () => <ZonesPage /> },
    { path: '/dns-zones/:id', scope: 'dns:read', render: ({ id = '' }) => <ZonePage key={id} id={id} /> },
  ],
})
