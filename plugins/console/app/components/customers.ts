// One customer, read once for every page that shows it (its page, a user's "add to team" form): the key comes from
// the path, so they share the cache entry.

import { useQuery } from '@tanstack/react-query'
import { api } from '../api/client.ts'

/** `GET /customers/{id}`; disabled while `id` is empty. */
export function useCustomer(id: string) {
  return useQuery({
    ...api.query('/api/v1/customers/{id}', { params: { path: { id } } }),
    enabled: id !== '',
  })
}
