// The one read of a site every sites page (and the files/terminal pages) shares, so they share its cache entry.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'

/** The react-query result of `GET /sites/{id}`, under the query key `['sites', id]`. */
export function useSite(id: string) {
  return useQuery({
    queryKey: ['sites', id],
    queryFn: () => unwrap(api.GET('/api/v1/sites/{id}', { params: { path: { id } } })),
    // A site in flight changes status by itself; poll it until it settles so the page is never stale.
    refetchInterval: (query) => {
      const status = query.state.data?.status
      return status === 'provisioning' || status === 'deleting' ? 3000 : false
    },
  })
}
