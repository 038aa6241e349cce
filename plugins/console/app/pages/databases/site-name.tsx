// A site by its name and domain, linked to its page; read from the API, and shown by id when the caller cannot
// read it (no `site:read`) or while it loads.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { Link } from '../../router.tsx'
import { useSession } from '../../session.tsx'

export function SiteName({ id, queryKey }: { id: string; queryKey: readonly unknown[] }) {
  const { can } = useSession()
  const site = useQuery({
    queryKey: [...queryKey, id],
    enabled: can('site:read'),
    queryFn: () => unwrap(api.GET('/api/v1/sites/{id}', { params: { path: { id } } })),
    retry: false,
  })
  return (
    <Link to={`/sites/${encodeURIComponent(id)}`}>
      {site.data ? `${site.data.name} (${site.data.domain})` : id}
    </Link>
  )
}
