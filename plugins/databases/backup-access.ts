// The databases plugin's service for backups: a login made for one run on a node, to one database (reading it for a
// dump, or replacing its tables for a restore) or to a scratch database made beside it (a dump's test restore), and
// dropped after. The server's administrator never leaves the panel (a node's own server's never leaves the node):
// the node gets only the temporary login. Names carry their time (temporary-names.ts), so the periodic check drops
// what a crash left behind.
//
// Leases are not audited: they are internal (no route makes one), change nothing the panel records or a customer
// sees, and the backup or restore that asks for them is audited by its own plugin. They are logged without their
// password.

import { type Db, type PluginContext, Problem } from '../../core/index.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import type {
  DatabaseBackupAccess,
  databaseStatuses,
  LeasedLogin,
  SiteDatabaseRef,
  TemporaryLogin,
} from './contract.ts'
import type { Access, EngineName } from './engines/engine.ts'
import type { DatabaseServersTable, DatabasesTable, DatabasesTables } from './migrations.ts'
import { generatePassword, verifierFor } from './passwords.ts'
import { databasesProblems } from './problems.ts'
import { findDatabaseRow, findServerRow, findUserRow, grantsOf, usersGrantedOn } from './repository.ts'
import { accessOf, type Engines, serverEngines } from './server-access.ts'
import { reaches, siteLoginHosts, siteNodeOf } from './site-reach.ts'
import { temporaryNameAt } from './temporary-names.ts'

/** The `databaseBackupAccess` service on the plugin's engines. */
export function databaseBackupAccessService(context: PluginContext, engines: Engines): DatabaseBackupAccess {
  const engineOf = serverEngines(context, engines)

  /** The active database `databaseId` and its server, or the problem of one that cannot be leased now. */
  async function databaseAndServer(
    databaseId: string,
  ): Promise<{ database: DatabasesTable; server: DatabaseServersTable }> {
    const database = await findDatabaseRow(context.db, databaseId)
    if (!database)
      throw new Problem(databasesProblems.unknown_database, {
        detail: `There is no database ${databaseId}.`,
      })
    if (database.status !== 'active') throw new Problem(databasesProblems.database_busy)
    const server = await findServerRow(context.db, database.server_id)
    if (!server) throw new Error(`The server ${database.server_id} of database ${databaseId} is gone`)
    return { database, server }
  }

  /**
   * The hosts a login on `server` is granted to for node `nodeId` (as a site's login on that node is), or the problem
   * when the node cannot reach the server: another node's own server, or one on the panel's loopback.
   */
  async function hostsFor(server: DatabaseServersTable, nodeId: string | null): Promise<string[]> {
    if (nodeId === null) return siteLoginHosts(server, null)
    const node = await context.use(nodeDirectory).find(nodeId)
    if (!node) throw new Error(`The node ${nodeId} does not exist`)
    const at = siteNodeOf(node)
    if (!reaches(server, at))
      throw new Problem(databasesProblems.database_server_unreachable, {
        detail: `The database server ${server.name} cannot be reached from the node ${node.name}.`,
      })
    return siteLoginHosts(server, at)
  }

  /**
   * The account that defines what a restore loaded into database `databaseId` once the temporary login is gone: the
   * first active login of the customer's granted readwrite on it (the site's own, for a WordPress site), or null.
   */
  async function heirOf(databaseId: string): Promise<{ username: string; host: string } | null> {
    const ids = await usersGrantedOn(context.db, databaseId)
    const grants = await grantsOf(context.db, ids)
    for (const id of ids.toSorted()) {
      const writes = grants
        .get(id)
        ?.some((grant) => grant.databaseId === databaseId && grant.access === 'readwrite')
      const user = writes ? await findUserRow(context.db, id) : undefined
      const [host] = user ? (JSON.parse(user.allowed_hosts) as string[]) : []
      if (user?.status === 'active' && host) return { username: user.username, host }
    }
    return null
  }

  /**
   * Makes a temporary login with `access` to `database` on `server`, usable from `nodeId`; with `scratch`, makes the
   * database first, under the login's own name. Whatever was made is dropped again when a step fails. A readwrite
   * login to a site's database (a restore's) hands what it defined (MariaDB's views, triggers, routines, events) to
   * the database's own login before it goes, so they keep working.
   */
  async function leaseOn(
    server: DatabaseServersTable,
    nodeId: string | null,
    database: string,
    access: Access,
    made: { readonly scratch: true } | { readonly scratch: false; readonly databaseId: string },
  ): Promise<LeasedLogin> {
    const { scratch } = made
    const hosts = await hostsFor(server, nodeId)
    const engine = engineOf(server)
    const admin = accessOf(context.secrets, server)
    const username = scratch ? database : temporaryNameAt(new Date())
    const password = generatePassword()
    const handOver = async () => {
      if (made.scratch || access !== 'readwrite') return
      const heir = await heirOf(made.databaseId)
      const handed = heir ? await engine.handOverDefinitions(admin, database, username, heir) : 0
      if (handed > 0)
        context.log.info(
          { serverId: server.id, database, heir: heir?.username, handed },
          'definitions a restore loaded handed to the database’s own login',
        )
    }
    const drop = async () => {
      await engine.dropUser(admin, username, hosts)
      if (scratch) await engine.dropDatabase(admin, database)
    }
    try {
      if (scratch) await engine.createDatabase(admin, database)
      await engine.createUser(admin, username, verifierFor(server.engine as EngineName, password), hosts)
      await engine.setGrants(admin, username, [{ database, access }], hosts)
    } catch (error) {
      // Whatever was made goes now; what cannot go yet (its server went away) the sweep drops later.
      await drop().catch(() => {})
      throw error
    }
    context.log.info(
      { serverId: server.id, username, database, access, scratch },
      'temporary database login made',
    )
    const login: TemporaryLogin = {
      engine: server.engine as EngineName,
      // As the node reaches it: the address its sites use (a node's own server is on the node's loopback).
      host: server.host,
      port: server.port,
      database,
      username,
      password,
    }
    let released = false
    return {
      login,
      async release() {
        if (released) return
        // A login with write access never outlives its run: one whose definitions cannot be handed over goes all
        // the same (what it defined then fails until the database's login makes it again), said in the log.
        await handOver().catch((error: unknown) =>
          context.log.warn(
            { err: error, serverId: server.id, database },
            'definitions a restore loaded could not be handed to the database’s own login',
          ),
        )
        await drop()
        released = true
        context.log.info({ serverId: server.id, username, database }, 'temporary database login dropped')
      },
    }
  }

  return {
    async ofSite(db: Db, siteId: string): Promise<readonly SiteDatabaseRef[]> {
      const rows = await db
        .withTables<DatabasesTables>()
        .selectFrom('databases')
        .selectAll()
        .where('site_id', '=', siteId)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        engine: row.engine as EngineName,
        serverId: row.server_id,
        status: row.status as (typeof databaseStatuses)[number],
      }))
    },

    async lease(databaseId, access, nodeId) {
      const { database, server } = await databaseAndServer(databaseId)
      return leaseOn(server, nodeId, database.name, access === 'readonly' ? 'dump' : 'readwrite', {
        scratch: false,
        databaseId,
      })
    },

    async scratch(databaseId, nodeId) {
      const { server } = await databaseAndServer(databaseId)
      // The login and its database share the name: one thing made for the run, dropped with it.
      return leaseOn(server, nodeId, temporaryNameAt(new Date()), 'readwrite', { scratch: true })
    },
  }
}
