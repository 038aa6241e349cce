// The kernel's own API operations, under the API base path like every plugin's.

import type { RouteDefinition } from '../../plugin/route.ts'
import { apiTokenRoutes } from './api-token-routes.ts'
import { authRoutes } from './auth-routes.ts'
import type { KernelRouteContext } from './kernel-context.ts'
import { meRoutes } from './me-routes.ts'
import { sessionRoutes } from './session-routes.ts'
import { userRoutes } from './user-routes.ts'
import { userTokenRoutes } from './user-token-routes.ts'

export type { KernelRouteContext } from './kernel-context.ts'
export { userProblems, userScopes } from './user-routes.ts'

/** Sign-in, the caller and their sessions, API tokens, users and what staff do to their accounts. */
export function identityRoutes(context: KernelRouteContext): RouteDefinition[] {
  return [
    ...authRoutes(context),
    ...meRoutes(context),
    ...sessionRoutes(context),
    ...apiTokenRoutes(context),
    ...userRoutes(context),
    ...userTokenRoutes(context),
  ]
}
