// A customer's sites, for the forms of other areas that attach something to a site (a database, a certificate).

import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../console/kit.ts'
import { api } from './api.ts'

/** Every site of `customerId` (none while no customer is chosen, or for a caller without `site:read`). */
export function useCustomerSites(customerId: string) {
  const { can } = useSession()
  return useQuery({
    ...api.all('/api/v1/sites', { params: { query: { customerId } } }),
    enabled: customerId !== '' && can('site:read'),
  })
}
