// The one read of a customer its pages share, under the query key `['customers', id]`.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'

/** `GET /customers/{id}`; disabled while `id` is empty. */
export function useCustomer(id: string) {
  return useQuery({
    queryKey: ['customers', id],
    queryFn: () => unwrap(api.GET('/api/v1/customers/{id}', { params: { path: { id } } })),
    enabled: id !== '',
  })
}
