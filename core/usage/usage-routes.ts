// GET /usage: counts for dashboards within the caller's view, read from counters kept as rows change, and one
// customer's limits beside its use.

import { Type as t } from '@sinclair/typebox'
import { customerInView } from '../auth/caller.ts'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { Quota } from '../quotas/quota-schema.ts'
import { type Quotas, soleCustomerOf } from '../quotas/quotas.ts'
import type { Store } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { usageOf } from './usage-counters.ts'

const Traffic = t.Object({ requests: t.Integer({ minimum: 0 }), bytes: t.Integer({ minimum: 0 }) })
const Usage = t.Object(
  {
    customers: t.Integer({ minimum: 0 }),
    sites: t.Integer({ minimum: 0 }),
    domains: t.Integer({ minimum: 0 }),
    databases: t.Integer({ minimum: 0 }),
    diskMB: t.Integer({ minimum: 0, description: 'Disk quota given to the sites in view, in MB.' }),
    traffic: t.Object(
      { last24h: Traffic, last7d: Traffic },
      {
        description:
          'Requests and bytes nodes reported for the sites in view (reporting arrives with the nodes area).',
      },
    ),
    quota: t.Union([Quota, t.Null()], {
      description:
        'When the view is one customer (`customerId` given, or a caller who sees only one): its limits beside its use. Null otherwise.',
    }),
  },
  { $id: 'Usage' },
)

const UsageQuery = t.Object({
  customerId: t.Optional(
    t.String({
      maxLength: 64,
      description: 'Only this customer (narrows the view; a customer outside it is 404), with its limits.',
    }),
  ),
})

/** The usage operation. */
export function usageRoutes(store: Store, quotas: Quotas): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/usage',
      operationId: 'getUsage',
      summary: 'Counts for dashboards within the caller’s view',
      description:
        'Customers, sites, domains, databases, disk and recent traffic of every customer the caller can see. Kept up to date as rows change, so it costs the same at any size. For one customer (`customerId`, or a caller who sees only one) `quota` shows its limits beside its use.',
      authenticated: true,
      query: UsageQuery,
      responses: { 200: { description: 'The usage.', schema: Usage } },
      async handler({ caller, query }) {
        let view: TenantView = caller.view
        if (query.customerId !== undefined) {
          if (!(await customerInView(store.db, view, query.customerId)))
            throw new Problem(kernelProblems.not_found)
          view = { kind: 'customers', customerIds: [query.customerId] }
        }
        const customerId = soleCustomerOf(view)
        return {
          ...(await usageOf(store.db, view)),
          quota: customerId === null ? null : await quotas.quotaOf(store.db, customerId),
        }
      },
    }),
  ]
}
