// The support plugin's console module: one navigation entry and one page of the customer portal, shown to team
// members holding `support:read`.

import { defineConsolePages } from '../../../plugins/console/kit.ts'
import { SupportPage } from './support-page.tsx'

export default defineConsolePages({
  navigation: [
    { group: 'Account', label: 'Support', to: '/support', scope: 'support:read', audience: 'member' },
  ],
  routes: [{ path: '/support', scope: 'support:read', audience: 'member', render: () => <SupportPage /> }],
})
