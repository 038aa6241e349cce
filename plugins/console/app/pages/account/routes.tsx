// The account area's pages: the signed-in user's own account.

import type { RouteDefinition } from '../../router.tsx'
import './account.css'
import { AccountPage } from './account-page.tsx'

export const accountRoutes: RouteDefinition[] = [{ path: '/account', render: () => <AccountPage /> }]
