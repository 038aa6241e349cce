// Reads shared by this area's pages, under query keys that start with the area's name so a change can refresh
// them: a customer's databases (for grants and servers), the database servers staff may read, a customer's sites.

import { useQuery } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { useSession } from '../../session.tsx'

type Database = Schemas['Database']
type DatabaseServer = Schemas['DatabaseServer']

/** Pages through a list to its end, at most `maxPages` pages of 100: enough for a form's choices. */
async function all<T>(
  load: (cursor: string | undefined) => Promise<{ items: readonly T[]; nextCursor?: string | null }>,
  maxPages = 10,
): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  for (let page = 0; page < maxPages; page++) {
    const answer = await load(cursor)
    items.push(...answer.items)
    if (!answer.nextCursor) break
    cursor = answer.nextCursor
  }
  return items
}

/** Every database of a customer (none while no customer is chosen). */
export function useCustomerDatabases(customerId: string) {
  return useQuery({
    queryKey: ['databases', 'of-customer', customerId],
    enabled: customerId !== '',
    queryFn: () =>
      all<Database>((cursor) =>
        unwrap(api.GET('/api/v1/databases', { params: { query: { customerId, cursor, limit: 100 } } })),
      ),
  })
}

/** Every database user of a customer on a server. */
export function useServerUsers(customerId: string, serverId: string) {
  return useQuery({
    queryKey: ['database-users', 'of-customer', customerId, serverId],
    queryFn: () =>
      all<Schemas['DatabaseUser']>((cursor) =>
        unwrap(
          api.GET('/api/v1/database-users', {
            params: { query: { customerId, serverId, cursor, limit: 100 } },
          }),
        ),
      ),
  })
}

/**
 * The database servers by id, for callers holding `database-server:read` (platform staff); an empty map for
 * everyone else, who know servers only by the address their databases give.
 */
export function useDatabaseServers() {
  const { can } = useSession()
  const allowed = can('database-server:read')
  const servers = useQuery({
    queryKey: ['database-servers', 'all'],
    enabled: allowed,
    queryFn: () =>
      all<DatabaseServer>((cursor) =>
        unwrap(api.GET('/api/v1/database-servers', { params: { query: { cursor, limit: 100 } } })),
      ),
  })
  return new Map((servers.data ?? []).map((server) => [server.id, server]))
}

/** A customer's sites, for the optional site of a new database. */
export function useCustomerSites(customerId: string) {
  const { can } = useSession()
  return useQuery({
    queryKey: ['databases', 'sites-of-customer', customerId],
    enabled: customerId !== '' && can('site:read'),
    queryFn: () =>
      all<Schemas['Site']>(
        (cursor) =>
          unwrap(api.GET('/api/v1/sites', { params: { query: { customerId, cursor, limit: 100 } } })),
        3,
      ),
  })
}

/** Engines as people write them. */
export const engineLabels: Readonly<Record<string, string>> = {
  mariadb: 'MariaDB',
  postgresql: 'PostgreSQL',
}
