// Every page of the app, by path. Each area lists its own pages in `pages/<area>/routes.tsx`.

import { accountRoutes } from './pages/account/routes.tsx'
import { activityRoutes } from './pages/activity/routes.tsx'
import { billingRoutes } from './pages/billing/routes.tsx'
import { brandRoutes } from './pages/brands/routes.tsx'
import { certificateRoutes } from './pages/certificates/routes.tsx'
import { customerRoutes } from './pages/customers/routes.tsx'
import { Dashboard } from './pages/dashboard.tsx'
import { databaseRoutes } from './pages/databases/routes.tsx'
import { fileRoutes } from './pages/files/routes.tsx'
import { nodeRoutes } from './pages/nodes/routes.tsx'
import { siteRoutes } from './pages/sites/routes.tsx'
import { tokenRoutes } from './pages/tokens/routes.tsx'
import { userRoutes } from './pages/users/routes.tsx'
import { webhookRoutes } from './pages/webhooks/routes.tsx'
import type { RouteDefinition } from './router.tsx'

export const routes: readonly RouteDefinition[] = [
  { path: '/', render: () => <Dashboard /> },
  ...customerRoutes,
  ...siteRoutes,
  ...fileRoutes,
  ...databaseRoutes,
  ...certificateRoutes,
  ...billingRoutes,
  ...nodeRoutes,
  ...brandRoutes,
  ...userRoutes,
  ...webhookRoutes,
  ...activityRoutes,
  ...tokenRoutes,
  ...accountRoutes,
]
