// The kernel's own operations: liveness and readiness, mounted outside the API base path.

import { Type as t } from '@sinclair/typebox'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

const HealthStatus = t.Object({ status: t.Literal('ok') }, { $id: 'HealthStatus' })

/** The kernel's routes, by absolute path. `isReady` says whether the store is open and migrations applied. */
export function kernelRoutes(isReady: () => Promise<boolean>): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Liveness: the process answers',
      public: true,
      rateLimited: false,
      responses: { 200: { description: 'The process is alive.', schema: HealthStatus } },
      handler: () => ({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      operationId: 'getReadiness',
      summary: 'Readiness: the store is open and every migration applied',
      public: true,
      rateLimited: false,
      responses: { 200: { description: 'Ready to serve.', schema: HealthStatus } },
      problems: [kernelProblems.not_ready],
      handler: async () => {
        if (!(await isReady())) throw new Problem(kernelProblems.not_ready)
        return { status: 'ok' }
      },
    }),
  ]
}
