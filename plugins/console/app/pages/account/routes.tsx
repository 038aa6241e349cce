// The account area's pages: the signed-in user's own account.

import type { ConsoleRoute } from '../../console-pages.ts'
import './account.css'
import { AccountPage } from './account-page.tsx'

export const accountRoutes: readonly ConsoleRoute[] = [{ path: '/account', render: () => <AccountPage /> }]
