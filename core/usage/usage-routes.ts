// GET /usage: counts for dashboards within the caller's view, read from counters kept as rows change.

import { Type as t } from '@sinclair/typebox'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import type { Store } from '../store/store.ts'
import { usageOf } from './usage-counters.ts'

const Traffic = t.Object({ requests: t.Integer({ minimum: 0 }), bytes: t.Integer({ minimum: 0 }) })
const Usage = t.Object(
  {
    customers: t.Integer({ minimum: 0 }),
    sites: t.Integer({ minimum: 0 }),
    domains: t.Integer({ minimum: 0 }),
    databases: t.Integer({ minimum: 0 }),
    traffic: t.Object(
      { last24h: Traffic, last7d: Traffic },
      {
        description:
          'Requests and bytes nodes reported for the sites in view (reporting arrives with the nodes area).',
      },
    ),
  },
  { $id: 'Usage' },
)

/** The usage operation. */
export function usageRoutes(store: Store): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/usage',
      operationId: 'getUsage',
      summary: 'Counts for dashboards within the caller’s view',
      description:
        'Customers, sites, domains, databases and recent traffic of every customer the caller can see. Kept up to date as rows change, so it costs the same at any size.',
      authenticated: true,
      responses: { 200: { description: 'The usage.', schema: Usage } },
      handler: ({ caller }) => usageOf(store.db, caller.view),
    }),
  ]
}
