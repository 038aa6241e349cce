// The kernel's own operations: liveness and readiness, mounted outside the API base path.

import { Type as t } from '@sinclair/typebox'
import type { ReadinessCheck } from '../plugin/readiness-check.ts'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

const HealthStatus = t.Object({ status: t.Literal('ok') }, { $id: 'HealthStatus' })

const ReadinessStatus = t.Object(
  {
    status: t.Union([t.Literal('ok'), t.Literal('degraded')], {
      description:
        '`ok`: the store is open, every migration applied, and every check the plugins contribute is ready; `degraded`: the panel serves its API, but a check a plugin contributes is not ready, named in `checks` with its reasons.',
    }),
    checks: t.Array(
      t.Object({
        name: t.String({ description: 'The check, `<plugin>.<name>`.' }),
        ready: t.Boolean(),
        reasons: t.Array(
          t.Object({
            code: t.String({ description: 'A stable code (`port_taken`).' }),
            message: t.String({ description: 'What is wrong, in words an operator acts on.' }),
          }),
          { description: 'Why it is not ready; empty when it is.' },
        ),
      }),
      { description: 'The checks the installation’s plugins contribute, each with its outcome.' },
    ),
  },
  { $id: 'ReadinessStatus' },
)

/** A plugin's readiness check, with the plugin's name. */
export interface NamedReadinessCheck extends ReadinessCheck {
  readonly plugin: string
}

/**
 * The kernel's routes, by absolute path. `isReady` says whether the store is open and migrations applied; `checks`
 * the readiness checks the plugins contribute (read at each call: known once the panel is set up).
 */
export function kernelRoutes(
  isReady: () => Promise<boolean>,
  checks: () => readonly NamedReadinessCheck[] = () => [],
): RouteDefinition[] {
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
      summary: 'Readiness: the store is open, every migration applied, and what the plugins check',
      description:
        'Answers 503 `not_ready` while the store is closed, a migration is pending or the panel is stopping: take it out of rotation. Otherwise 200: `ok` when every check the plugins contribute is ready, `degraded` when one is not (the API serves, so a load balancer keeps the panel; monitoring alerts on `degraded`), each check with its reasons.',
      public: true,
      rateLimited: false,
      responses: {
        200: {
          description: 'Ready to serve the API; `status` says whether all is well.',
          schema: ReadinessStatus,
        },
      },
      problems: [kernelProblems.not_ready],
      handler: async () => {
        if (!(await isReady())) throw new Problem(kernelProblems.not_ready)
        const outcomes = await Promise.all(
          checks().map(async (check) => {
            const outcome = await check.check().catch((error: unknown) => ({
              ready: false,
              reasons: [{ code: 'check_failed', message: (error as Error).message }],
            }))
            return {
              name: `${check.plugin}.${check.name}`,
              ready: outcome.ready,
              reasons: outcome.ready ? [] : outcome.reasons.map(({ code, message }) => ({ code, message })),
            }
          }),
        )
        return { status: outcomes.every((outcome) => outcome.ready) ? 'ok' : 'degraded', checks: outcomes }
      },
    }),
  ]
}
