// The active plans a customer's brand offers (`GET /checkout/plans`), read once per customer and shared by checkout,
// the plan choice of staff forms, and plan names.

import { useQuery } from '@tanstack/react-query'
import { api } from './api.ts'

/** The react-query result of the first 100 plans offered to `customerId` (disabled while it is empty). */
export function useOfferedPlans(customerId: string) {
  return useQuery({
    ...api.query('/api/v1/checkout/plans', { params: { query: { customerId, limit: 100 } } }),
    enabled: customerId !== '',
  })
}
