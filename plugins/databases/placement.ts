// Where a new database goes: the own server of the site's node when it has one with room (its sites reach it on
// their loopback); else the active server of its engine staff added with room and the fewest databases, the oldest on
// a tie. A node's own server takes no database but its own sites': nothing else could reach it.

import { type Db, Problem } from '../../core/index.ts'
import type { DatabaseServersTable } from './migrations.ts'
import { databasesProblems } from './problems.ts'
import { activeServers, databaseCounts } from './repository.ts'

/**
 * The server a new database of `engine` goes on, for a site on `nodeId` (null: a database of no site, which only a
 * server staff added takes), or 409 `no_database_server`.
 */
export async function placementOn(
  db: Db,
  engine: string,
  nodeId: string | null = null,
): Promise<DatabaseServersTable> {
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
  const chosen =
    (nodeId === null ? undefined : roomy.find((server) => server.node_id === nodeId)) ??
    fewest(roomy.filter((server) => server.node_id === null))
  if (chosen) return chosen
  throw new Problem(databasesProblems.no_database_server, {
    ...(nodeId === null && roomy.length > 0
      ? {
          detail:
            'Only nodes’ own database servers have room, and they take their sites’ databases alone: give `siteId` to place it on its site’s node.',
        }
      : {}),
  })
}
