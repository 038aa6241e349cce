// A site by its name and domain, linked to its page; read from the API (the same cache entry as the site's page),
// and shown by id when the caller cannot read it (no `site:read`) or while it loads.

import { useQuery } from '@tanstack/react-query'
import { Link, useSession } from '../../console/kit.ts'
import { api } from './api.ts'

export function SiteName({ id }: { id: string }) {
  const { can } = useSession()
  const site = useQuery({
    ...api.query('/api/v1/sites/{id}', { params: { path: { id } } }),
    enabled: can('site:read'),
    retry: false,
  })
  return (
    <Link to={`/sites/${encodeURIComponent(id)}`}>
      {site.data ? `${site.data.name} (${site.data.domain})` : id}
    </Link>
  )
}
