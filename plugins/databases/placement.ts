// Where a new database goes: the own server of the site's node when it has one with room (its sites reach it on
// their loopback); else the active server of its engine staff added with room and the fewest databases, the oldest on
// a tie. A node's own server takes no database but its own sites': nothing else could reach it.

import { type Db, Problem } from '../../core/index.ts'
import type { DatabaseServersTable } from './migrations.ts'
import { databasesProblems } from './problems.ts'
import { activeServers, databaseCounts } from './repository.ts'
import { reaches, type SiteNode } from './site-reach.ts'

/**
 * The server a new database of `engine` goes on, for a site on `node` (null: a database of no site, which only a
 * server staff added takes), or 409 `no_database_server`; 409 `database_server_unreachable` when the only servers
 * with room are on the panel's loopback and the site's node is another machine.
 */
export async function placementOn(
  db: Db,
  engine: string,
  node: SiteNode | null = null,
): Promise<DatabaseServersTable> {
  const nodeId = node?.id ?? null
  const servers = await activeServers(db, engine)
  const counts = await databaseCounts(
    db,
    servers.map((server) => server.id),
  )
  const roomy = servers.filter(
    (server) => server.capacity === null || (counts.get(server.id) ?? 0) < server.capacity,
  )
  const fewest = (candidates: DatabaseServersTable[]) =>
    candidates.toSorted((a, b) => (counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0))[0]
  const staffs = roomy.filter((server) => server.node_id === null)
  const chosen =
    (nodeId === null ? undefined : roomy.find((server) => server.node_id === nodeId)) ??
    fewest(node === null ? staffs : staffs.filter((server) => reaches(server, node)))
  if (chosen) return chosen
  if (node !== null && staffs.length > 0)
    throw new Problem(databasesProblems.database_server_unreachable, {
      detail: `The database servers with room (${staffs.map((server) => `${server.name} at ${server.host}`).join(', ')}) are registered at a loopback address, on the panel’s own machine: a site on another machine cannot reach them. Register a server at an address the node reaches (PATCH /database-servers/{id} with its host), or give the node a database server of its own.`,
    })
  throw new Problem(databasesProblems.no_database_server, {
    ...(nodeId === null && roomy.length > 0
      ? {
          detail:
            'Only nodes’ own database servers have room, and they take their sites’ databases alone: give `siteId` to place it on its site’s node.',
        }
      : {}),
  })
}
