// Where a new database goes: the active server of its engine with room and the fewest databases, the oldest on a
// tie.

import { type Db, Problem } from '../../core/index.ts'
import type { DatabaseServersTable } from './migrations.ts'
import { databasesProblems } from './problems.ts'
import { activeServers, databaseCounts } from './repository.ts'

/** The server a new database of `engine` goes on, or 409 `no_database_server`. */
export async function placementOn(db: Db, engine: string): Promise<DatabaseServersTable> {
  const servers = await activeServers(db, engine)
  const counts = await databaseCounts(
    db,
    servers.map((server) => server.id),
  )
  const roomy = servers.filter(
    (server) => server.capacity === null || (counts.get(server.id) ?? 0) < server.capacity,
  )
  const chosen = roomy.toSorted((a, b) => (counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0))[0]
  if (!chosen) throw new Problem(databasesProblems.no_database_server)
  return chosen
}
