// The one read of a site every page of a site shares (its overview, and the tabs other plugins add), so they share
// its cache entry: the key comes from the path.

import { useQuery } from '@tanstack/react-query'
import { api } from './api.ts'

/** The react-query result of `GET /sites/{id}`. */
export function useSite(id: string) {
  return useQuery({
    ...api.query('/api/v1/sites/{id}', { params: { path: { id } } }),
    // A site in flight changes status by itself; poll it until it settles so the page is never stale.
    refetchInterval: (query) => {
      const status = query.state.data?.status
      return status === 'provisioning' || status === 'deleting' ? 3000 : false
    },
  })
}
