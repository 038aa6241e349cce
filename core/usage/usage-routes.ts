// GET /usage: counts for dashboards within the caller's view, read from counters kept as rows change (each metric
// and section declared by the plugin that keeps it), and one customer's limits beside its use.

import { type TSchema, Type as t } from '@sinclair/typebox'
import { customerInView } from '../auth/caller.ts'
import type { Owned } from '../panel/catalogue.ts'
import type { UsageMetricDefinition, UsageSection } from '../plugin/define-plugin.ts'
import { defineRoute, type RouteDefinition } from '../plugin/route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { type Quotas, quotaSchema, soleCustomerOf } from '../quotas/quotas.ts'
import type { Store } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { usageCountersFor, usageScopesOfView } from './usage-counters.ts'

const UsageQuery = t.Object({
  customerId: t.Optional(
    t.String({
      maxLength: 64,
      description: 'Only this customer (narrows the view; a customer outside it is 404), with its limits.',
    }),
  ),
})

/** What `/usage` reports: the declared counters and sections, and quotas. */
export interface UsageReport {
  readonly metrics: readonly Owned<UsageMetricDefinition>[]
  readonly sections: readonly Owned<UsageSection>[]
  readonly quotas: Quotas
  /** The metrics plans may limit, for the `quota` schema. */
  readonly limited: readonly { readonly name: string; readonly description: string }[]
}

/** The usage operation. */
export function usageRoutes(store: Store, report: UsageReport): RouteDefinition[] {
  const counters = usageCountersFor(
    'kernel',
    [],
    report.metrics.map((metric) => metric.name),
  )
  const Usage = t.Object(
    {
      ...Object.fromEntries(
        report.metrics.map((metric): [string, TSchema] => [
          metric.name,
          t.Integer({ minimum: 0, description: `${metric.description} (${metric.plugin})` }),
        ]),
      ),
      ...Object.fromEntries(report.sections.map((section) => [section.name, section.schema])),
      quota: t.Union([quotaSchema(report.limited), t.Null()], {
        description:
          'When the view is one customer (`customerId` given, or a caller who sees only one): its limits beside its use. Null otherwise.',
      }),
    },
    { $id: 'Usage' },
  )
  return [
    defineRoute({
      method: 'GET',
      path: '/usage',
      operationId: 'getUsage',
      summary: 'Counts for dashboards within the caller’s view',
      description:
        'Every usage counter the installation’s plugins keep, summed over the customers the caller can see, and the sections they add. Kept up to date as rows change, so it costs the same at any size. For one customer (`customerId`, or a caller who sees only one) `quota` shows its limits beside its use.',
      authenticated: true,
      query: UsageQuery,
      responses: { 200: { description: 'The usage.', schema: Usage } },
      problems: [kernelProblems.not_found],
      async handler({ caller, query }) {
        let view: TenantView = caller.view
        if (query.customerId !== undefined) {
          if (!(await customerInView(store.db, view, query.customerId)))
            throw new Problem(kernelProblems.not_found)
          view = { kind: 'customers', customerIds: [query.customerId] }
        }
        const scopes = usageScopesOfView(view)
        const sections: Record<string, unknown> = {}
        for (const section of report.sections) sections[section.name] = await section.read(store.db, scopes)
        const customerId = soleCustomerOf(view)
        return {
          ...(await counters.of(store.db, view)),
          ...sections,
          quota: customerId === null ? null : await report.quotas.of(store.db, customerId),
        }
      },
    }),
  ]
}
