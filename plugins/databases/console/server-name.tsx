// How a database's or login's server is named: by its name, linked, for staff who may read servers; by the
// address clients connect to for everyone else (members cannot list servers).

import { Link } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

export function ServerName({
  serverId,
  servers,
  fallback,
}: {
  serverId: string
  servers: ReadonlyMap<string, Schemas['DatabaseServer']>
  fallback?: string
}) {
  const server = servers.get(serverId)
  if (!server) return <>{fallback ?? serverId}</>
  return <Link to={`/database-servers/${encodeURIComponent(serverId)}`}>{server.name}</Link>
}
