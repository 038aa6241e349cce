// The kernel's own API operations, under the API base path like every plugin's.

import type { RouteDefinition } from '../../plugin/route.ts'
import { apiTokenRoutes } from './api-token-routes.ts'
import { authRoutes } from './auth-routes.ts'
import type { KernelRouteContext } from './kernel-context.ts'
import { meRoutes } from './me-routes.ts'
import { userRoutes } from './user-routes.ts'

export type { KernelRouteContext } from './kernel-context.ts'
export { userProblems, userScopes } from './user-routes.ts'

/** Sign-in, the caller, API tokens and users. */
export function identityRoutes(context: KernelRouteContext): RouteDefinition[] {
  return [...authRoutes(context), ...meRoutes(context), ...apiTokenRoutes(context), ...userRoutes(context)]
}
