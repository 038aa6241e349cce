// A node by its name, linked to its page, for the pages of other areas that say where something runs (a site);
// shown by id to callers who cannot read nodes (platform staff can) or while it loads.

import { useQuery } from '@tanstack/react-query'
import { Link, useSession } from '../../console/kit.ts'
import { api } from './api.ts'

export function NodeName({ id }: { id: string }) {
  const session = useSession()
  const node = useQuery({
    ...api.query('/api/v1/nodes/{id}', { params: { path: { id } } }),
    enabled: session.staff && session.can('node:read'),
    staleTime: 300_000,
  })
  return <Link to={`/nodes/${encodeURIComponent(id)}`}>{node.data?.name ?? id}</Link>
}
