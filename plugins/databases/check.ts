// The periodic check: every database's size measured on its server, every login's grants read back and compared
// with the panel's, so the panel reports what the servers hold instead of trusting what it asked for; and the
// temporary logins and scratch databases of backups that a crash left behind dropped.

import { type JobRun, nowIso, type PluginContext } from '../../core/index.ts'
import type { DatabaseGrant, DatabaseUser } from './contract.ts'
import { emitUser } from './lifecycle.ts'
import {
  activeDatabasesOn,
  activeUsersOn,
  databaseRowsOf,
  databasesOfCustomer,
  findDatabaseRow,
  findUserRow,
  grantsOf,
  serversQuery,
  updateDatabase,
  updateUser,
} from './repository.ts'
import { accessOf, type Engines, serverEngines } from './server-access.ts'
import { sweepTemporary } from './temporary-sweep.ts'

type Drift = NonNullable<DatabaseUser['drift']>

/** The drift between what the panel granted and what the server holds, or null when they agree. */
function driftOf(
  granted: readonly DatabaseGrant[],
  onServer: readonly { readonly database: string; readonly access: string }[],
  idsByName: ReadonlyMap<string, string>,
): Omit<Drift, 'detectedAt'> | null {
  const known: DatabaseGrant[] = []
  let unknown = 0
  for (const grant of onServer) {
    const databaseId = idsByName.get(grant.database)
    if (databaseId) known.push({ databaseId, access: grant.access as DatabaseGrant['access'] })
    else unknown++
  }
  const key = (grants: readonly DatabaseGrant[]) =>
    grants
      .map((grant) => `${grant.databaseId}:${grant.access}`)
      .sort()
      .join(',')
  if (unknown === 0 && key(known) === key(granted)) return null
  return { onServer: known, unknown }
}

/** Runs one check of every server that is not disabled; answers what it measured and found. */
export async function runCheck(context: PluginContext, engines: Engines, job: JobRun) {
  const { db, secrets } = context
  const servers = await serversQuery(db).where('status', '!=', 'disabled').execute()
  let measured = 0
  let drifted = 0
  let swept = 0
  const unreachable: string[] = []
  const engineOf = serverEngines(context, engines)
  for (const [index, server] of servers.entries()) {
    await job.progress(Math.round((index / Math.max(servers.length, 1)) * 100), `checking ${server.name}`)
    const engine = engineOf(server)
    const access = accessOf(secrets, server)
    try {
      const databases = await activeDatabasesOn(db, server.id)
      const sizes = await engine.databaseSizes(
        access,
        databases.map((row) => row.name),
      )
      const at = nowIso()
      for (const database of databases) {
        const size = sizes.get(database.name)
        if (size === undefined) continue
        await job.transaction(async (trx) => {
          const now = await findDatabaseRow(trx, database.id)
          if (now?.status !== 'active') return
          await updateDatabase(trx, now.id, { size_bytes: size, size_measured_at: at })
          const delta = size - Number(now.size_bytes ?? 0)
          if (delta !== 0) await context.usage.adjust(trx, now.customer_id, 'databaseBytes', delta)
        })
        measured++
      }
      // Real names of the server's databases the panel knows, deleting ones too: a grant on one is still known.
      const users = await activeUsersOn(db, server.id)
      const grants = await grantsOf(
        db,
        users.map((user) => user.id),
      )
      for (const user of users) {
        const onServer = await engine.readGrants(
          access,
          user.username,
          JSON.parse(user.allowed_hosts) as string[],
        )
        const named = await databaseRowsOf(
          db,
          (grants.get(user.id) ?? []).map((grant) => grant.databaseId),
        )
        const idsByName = new Map(named.map((row) => [row.name, row.id]))
        // Grants on the customer's other databases are drift too, named by id; anything else is only counted.
        const ownNames = await databasesOfCustomer(db, user.customer_id, [
          'provisioning',
          'active',
          'failed',
          'deleting',
        ])
        for (const row of ownNames)
          if (row.server_id === server.id && !idsByName.has(row.name)) idsByName.set(row.name, row.id)
        // The panel grants only on active databases; one still provisioning is not drift.
        const activeGranted = (grants.get(user.id) ?? []).filter((grant) =>
          named.some((row) => row.id === grant.databaseId && row.status === 'active'),
        )
        const found = driftOf(activeGranted, onServer, idsByName)
        await job.transaction(async (trx) => {
          const now = await findUserRow(trx, user.id)
          // Changed since it was read: its own sync job will apply and settle it.
          if (!now || now.revision !== user.revision || now.status !== 'active') return
          const before = now.drift === null ? null : (JSON.parse(now.drift) as Drift)
          const same =
            JSON.stringify(before && { onServer: before.onServer, unknown: before.unknown }) ===
            JSON.stringify(found)
          if (same) return
          const drift = found === null ? null : JSON.stringify({ detectedAt: nowIso(), ...found })
          const changed = await updateUser(trx, now.id, { drift })
          await emitUser(
            trx,
            { emit: (t, event) => job.emit(t, event) },
            changed,
            found ? 'database_user.drifted' : 'database_user.updated',
          )
        })
        if (found) drifted++
      }
      const dropped = await sweepTemporary(engine, access, new Date())
      swept += dropped.users.length + dropped.databases.length
      if (dropped.users.length + dropped.databases.length > 0)
        context.log.info(
          { serverId: server.id, ...dropped },
          'temporary logins and databases left behind dropped',
        )
    } catch (error) {
      context.log.warn({ err: error, serverId: server.id }, 'database server check failed')
      unreachable.push(server.id)
    }
  }
  return { servers: servers.length, measured, drifted, swept, failed: unreachable }
}
