// The sweep of temporary logins and scratch databases a crash left behind (a panel killed during a backup, a release
// that could not reach its server): those older than a run could last are dropped, found by their names alone.

import type { DatabaseEngine, ServerAccess } from './engines/engine.ts'
import { madeAtOf, temporaryPrefix } from './temporary-names.ts'

/** How old a temporary login or scratch database is when no run can still be using it. */
export const temporaryLifetimeMs = 6 * 60 * 60_000

/** What one sweep of a server dropped. */
export interface Swept {
  readonly users: readonly string[]
  readonly databases: readonly string[]
}

/** Drops the temporary logins, then the scratch databases, on one server made before `now` less `lifetimeMs`. */
export async function sweepTemporary(
  engine: DatabaseEngine,
  admin: ServerAccess,
  now: Date,
  lifetimeMs = temporaryLifetimeMs,
): Promise<Swept> {
  const found = await engine.namesStartingWith(admin, temporaryPrefix)
  const stale = (name: string) => {
    const at = madeAtOf(name)
    return at !== null && now.getTime() - at.getTime() > lifetimeMs
  }
  const users = found.users.filter(stale)
  const databases = found.databases.filter(stale)
  // The logins first: their sessions end before the databases they use are dropped.
  for (const user of users) await engine.dropUser(admin, user, [])
  for (const database of databases) await engine.dropDatabase(admin, database)
  return { users, databases }
}
