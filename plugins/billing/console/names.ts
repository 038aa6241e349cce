// Plans by name for the ids subscriptions carry, so lists read as words. The lookup is cosmetic: a name the caller
// cannot read falls back to the id, and the page itself still shows every refusal.

import { useQueries, useQuery } from '@tanstack/react-query'
import { useSession } from '../../console/kit.ts'
import { api } from './api.ts'

/** A plan's name by id: staff read the plans; members the plans offered to their teams. */
export function usePlanNames(): (id: string) => string {
  const session = useSession()
  const readsPlans = session.staff && session.can('plan:read')
  const plans = useQuery({ ...api.all('/api/v1/plans'), enabled: readsPlans })
  const customers = readsPlans ? [] : session.me.memberships.map((membership) => membership.customerId)
  const offered = useQueries({
    queries: customers.map((customerId) => ({
      ...api.query('/api/v1/checkout/plans', { params: { query: { customerId, limit: 100 } } }),
      retry: false,
    })),
  })
  const names = new Map<string, string>()
  for (const plan of plans.data ?? []) names.set(plan.id, plan.name)
  for (const page of offered) for (const plan of page.data?.items ?? []) names.set(plan.id, plan.name)
  return (id) => names.get(id) ?? id
}
