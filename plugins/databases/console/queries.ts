// Reads shared by this area's pages: a customer's databases (for grants and servers), a customer's database users
// on a server, and the database servers staff may read. Their keys come from their paths, so a change made at
// those paths reads them again.

import { useQuery } from '@tanstack/react-query'
import { useSession } from '../../console/kit.ts'
import { api } from './api.ts'

/** Every database of a customer (none while no customer is chosen). */
export function useCustomerDatabases(customerId: string) {
  return useQuery({
    ...api.all('/api/v1/databases', { params: { query: { customerId } } }),
    enabled: customerId !== '',
  })
}

/** Every database user of a customer on a server. */
export function useServerUsers(customerId: string, serverId: string) {
  return useQuery(api.all('/api/v1/database-users', { params: { query: { customerId, serverId } } }))
}

/**
 * The database servers by id, for callers holding `database-server:read` (platform staff); an empty map for
 * everyone else, who know servers only by the address their databases give.
 */
export function useDatabaseServers() {
  const { can } = useSession()
  const servers = useQuery({ ...api.all('/api/v1/database-servers'), enabled: can('database-server:read') })
  return new Map((servers.data ?? []).map((server) => [server.id, server]))
}

/** Engines as people write them. */
export const engineLabels: Readonly<Record<string, string>> = {
  mariadb: 'MariaDB',
  postgresql: 'PostgreSQL',
}
