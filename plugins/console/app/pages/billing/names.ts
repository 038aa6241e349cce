// Names for the ids a subscription or plan carries (customer, plan, brand), so lists read as words. Lookups are
// cosmetic: a name the caller cannot read falls back to the id, and the page itself still shows every refusal.

import { useQueries, useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { useCustomerOptions } from '../../components/customer-field.tsx'
import { useSession } from '../../session.tsx'

/** A customer's name by id (staff: the first 100 customers they see; members: their teams). */
export function useCustomerNames(): (id: string) => string {
  const { options } = useCustomerOptions()
  const names = new Map(options.map((option) => [option.value, option.label]))
  return (id) => names.get(id) ?? id
}

/** A plan's name by id: staff read the plans; members the plans offered to their teams. */
export function usePlanNames(): (id: string) => string {
  const session = useSession()
  const readsPlans = session.staff && session.can('plan:read')
  const plans = useQuery({
    queryKey: ['plans', 'names'],
    queryFn: () => unwrap(api.GET('/api/v1/plans', { params: { query: { limit: 100 } } })),
    enabled: readsPlans,
  })
  const customers = readsPlans ? [] : session.me.memberships.map((membership) => membership.customerId)
  const offered = useQueries({
    queries: customers.map((customerId) => ({
      queryKey: ['subscriptions', 'offered-names', customerId],
      queryFn: () =>
        unwrap(api.GET('/api/v1/checkout/plans', { params: { query: { customerId, limit: 100 } } })),
      retry: false,
    })),
  })
  const names = new Map<string, string>()
  for (const plan of plans.data?.items ?? []) names.set(plan.id, plan.name)
  for (const page of offered) for (const plan of page.data?.items ?? []) names.set(plan.id, plan.name)
  return (id) => names.get(id) ?? id
}

/** The brands platform staff may offer plans in, as select options; empty for everyone else. */
export function useBrandOptions(): { value: string; label: string }[] {
  const session = useSession()
  const enabled = session.me.kind === 'platform' && session.can('brand:read')
  const brands = useQuery({
    queryKey: ['plans', 'brands'],
    queryFn: () => unwrap(api.GET('/api/v1/brands', { params: { query: { limit: 100 } } })),
    enabled,
  })
  return (brands.data?.items ?? []).map((brand) => ({
    value: brand.id,
    label: brand.isDefault ? `${brand.name} (default)` : brand.name,
  }))
}
