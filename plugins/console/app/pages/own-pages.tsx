// The console's own pages, declared as every plugin declares its own: the kernel's areas (the dashboard, staff and
// users, jobs, the audit log, API tokens, the caller's account). The resource areas come from their plugins.

import { defineConsolePages } from '../console-pages.ts'
import { accountRoutes } from './account/routes.tsx'
import { activityRoutes } from './activity/routes.tsx'
import { Dashboard } from './dashboard.tsx'
import { tokenRoutes } from './tokens/routes.tsx'
import { userRoutes } from './users/routes.tsx'

export const ownPages = defineConsolePages({
  routes: [
    { path: '/', render: () => <Dashboard /> },
    ...userRoutes,
    ...activityRoutes,
    ...tokenRoutes,
    ...accountRoutes,
  ],
  navigation: [
    { group: 'Overview', label: 'Dashboard', to: '/', scope: null, audience: 'both', order: 0 },
    {
      group: 'Platform',
      label: 'Staff and users',
      to: '/users',
      scope: 'user:read',
      audience: 'staff',
      order: 630,
    },
    { group: 'Activity', label: 'Jobs', to: '/jobs', scope: 'job:read', audience: 'both', order: 800 },
    {
      group: 'Activity',
      label: 'Audit log',
      to: '/audit',
      scope: 'audit:read',
      audience: 'both',
      order: 810,
    },
    { group: 'Account', label: 'API tokens', to: '/api-tokens', scope: null, audience: 'both', order: 900 },
    { group: 'Account', label: 'Your account', to: '/account', scope: null, audience: 'both', order: 910 },
  ],
})
