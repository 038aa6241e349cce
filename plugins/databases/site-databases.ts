// The databases plugin's service for site types that install applications (WordPress): a site's own database and
// readwrite login, made through the same rows, jobs, audit entries and events as the API's, by the installation.

import {
  type Db,
  jobTrouble,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  type Trx,
} from '../../core/index.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import type { EngineName, SiteDatabase, SiteDatabases } from './contract.ts'
import {
  changeUser,
  emitDatabase,
  emitUser,
  startDatabaseSync,
  startUserSync,
  type Writers,
} from './lifecycle.ts'
import type { DatabasesTable, DatabaseUsersTable } from './migrations.ts'
import { realNameOf } from './naming.ts'
import { generatePassword, verifierFor } from './passwords.ts'
import { placementOn } from './placement.ts'
import { databasesProblems } from './problems.ts'
import {
  databasesOfSite,
  findDatabaseRow,
  findServerRow,
  findUserRow,
  insertDatabase,
  insertUser,
  newDatabaseRow,
  setGrantRows,
  updateDatabase,
  usernameTaken,
} from './repository.ts'
import { type SiteNode, siteLoginHosts, siteNodeOf } from './site-reach.ts'

/** The service, acting as the installation. */
export function siteDatabasesService(context: PluginContext): SiteDatabases {
  const writers: Writers = { enqueueJob: context.enqueueJob, audit: context.audit, emit: context.emit }

  /** The site's node as placement sees it (read through `db`), or null for a site on no node. */
  async function siteNode(db: Db, nodeId: string | null): Promise<SiteNode | null> {
    const node = nodeId ? await context.use(nodeDirectory).find(nodeId, db) : null
    return node ? siteNodeOf(node) : null
  }

  /**
   * A site's login granted to other hosts than its node connects from (made before logins followed their node's
   * address): given the right ones, through the same sync job as any change of hosts.
   */
  async function rehosted(trx: Trx, row: DatabaseUsersTable, hosts: readonly string[]) {
    const current = JSON.parse(row.allowed_hosts) as string[]
    if (current.length === hosts.length && hosts.every((host) => current.includes(host))) return row
    return changeUser(trx, writers, row, {
      changes: { allowed_hosts: JSON.stringify(hosts) },
      action: 'database_user.update',
      details: { allowedHosts: hosts, reason: 'the hosts its site’s node connects from' },
    })
  }

  async function describe(
    trx: Trx | PluginContext['db'],
    database: DatabasesTable,
    user: DatabaseUsersTable,
  ): Promise<SiteDatabase> {
    const server = await findServerRow(trx, database.server_id)
    return {
      databaseId: database.id,
      userId: user.id,
      host: server?.host ?? '',
      port: server?.port ?? 0,
      name: database.name,
      username: user.username,
      // Made, and the server followed the login's latest change (its password, its grant on this database).
      ready:
        database.status === 'active' && user.status === 'active' && user.applied_revision === user.revision,
      failed: database.status === 'failed' || user.status === 'failed',
      trouble:
        (database.job_id ? await jobTrouble(trx, database.job_id) : null) ??
        (user.job_id ? await jobTrouble(trx, user.job_id) : null),
    }
  }

  /** The audit entry of a site's database or login made again (see {@link repairedDatabase}). */
  async function auditRetry(
    trx: Trx,
    noun: 'database' | 'database_user',
    row: DatabasesTable | DatabaseUsersTable,
  ) {
    await writers.audit(trx, {
      action: `${noun}.retry`,
      subject: { type: noun, id: row.id },
      customerId: row.customer_id,
      details: { reason: 'the site’s provisioning is tried again', siteId: row.site_id },
    })
  }

  /**
   * A site's database whose making gave up (its server was down) is made again when the site's provisioning is
   * tried again, so a retried site repairs it rather than failing on it for good; likewise its login.
   */
  async function repairedDatabase(trx: Trx, row: DatabasesTable): Promise<DatabasesTable> {
    if (row.status !== 'failed') return row
    const moved = await updateDatabase(trx, row.id, { status: 'provisioning' })
    const changed = await startDatabaseSync(trx, writers.enqueueJob, moved)
    await auditRetry(trx, 'database', row)
    await emitDatabase(trx, writers, changed, 'database.updated')
    return changed
  }

  /** A site's login whose making gave up, made again (as {@link repairedDatabase}). */
  async function repairedLogin(trx: Trx, row: DatabaseUsersTable): Promise<DatabaseUsersTable> {
    if (row.status !== 'failed') return row
    const changed = await startUserSync(trx, writers.enqueueJob, row, { status: 'provisioning' })
    await auditRetry(trx, 'database_user', row)
    await emitUser(trx, writers, changed, 'database_user.updated')
    return changed
  }

  return {
    async ensure(trx, request) {
      const name = realNameOf(request.customerId, request.name)
      const existing = (await databasesOfSite(trx, request.siteId)).find((row) => row.name === name)
      if (existing) {
        const user = await trx
          .withTables<{ database_users: DatabaseUsersTable }>()
          .selectFrom('database_users')
          .selectAll()
          .where('server_id', '=', existing.server_id)
          .where('username', '=', name)
          .executeTakeFirst()
        const server = await findServerRow(trx, existing.server_id)
        if (user && user.status !== 'deleting' && server) {
          const login = await repairedLogin(trx, user)
          const hosts = siteLoginHosts(server, await siteNode(trx, request.nodeId))
          return describe(trx, await repairedDatabase(trx, existing), await rehosted(trx, login, hosts))
        }
      }
      const node = await siteNode(trx, request.nodeId)
      const server = existing
        ? await findServerRow(trx, existing.server_id)
        : await placementOn(trx, request.engine, node)
      if (!server) throw new Problem(databasesProblems.no_database_server)
      let database = existing
      if (!database) {
        await context.quotas.reserve(trx, { customerId: request.customerId, amounts: { databases: 1 } })
        const row = newDatabaseRow({
          customer_id: request.customerId,
          site_id: request.siteId,
          server_id: server.id,
          engine: request.engine,
          name,
        })
        await insertDatabase(trx, row)
        database = await startDatabaseSync(trx, writers.enqueueJob, row)
        await context.usage.adjust(trx, request.customerId, 'databases', 1)
        await writers.audit(trx, {
          action: 'database.create',
          subject: { type: 'database', id: row.id },
          customerId: request.customerId,
          details: { name, engine: request.engine, serverId: server.id, siteId: request.siteId },
        })
        await emitDatabase(trx, writers, database, 'database.created')
      }
      if (await usernameTaken(trx, server.id, name))
        throw new Error(`The login ${name} exists on ${server.name} without the site's database`)
      const now = nowIso()
      const user: DatabaseUsersTable = {
        id: newId('dbu'),
        customer_id: request.customerId,
        site_id: request.siteId,
        server_id: server.id,
        engine: request.engine,
        username: name,
        // The address its site's node connects from (loopback on the node's own server).
        allowed_hosts: JSON.stringify(siteLoginHosts(server, node)),
        grants: '[]',
        status: 'provisioning',
        locked: 0,
        // A password nobody knows until the caller sets the site's own.
        pending_verifier: context.secrets.seal(verifierFor(request.engine as EngineName, generatePassword())),
        revision: 0,
        applied_revision: -1,
        drift: null,
        job_id: null,
        sync_job: null,
        sync_until: null,
        created_at: now,
        updated_at: now,
      }
      await insertUser(trx, user)
      await setGrantRows(trx, user.id, [{ databaseId: database.id, access: 'readwrite' }])
      const created = await startUserSync(trx, writers.enqueueJob, user)
      await writers.audit(trx, {
        action: 'database_user.create',
        subject: { type: 'database_user', id: user.id },
        customerId: request.customerId,
        details: { username: name, serverId: server.id, siteId: request.siteId },
      })
      await emitUser(trx, writers, created, 'database_user.created')
      return describe(trx, database, created)
    },

    async canPlace(db, engine, nodeId) {
      try {
        await placementOn(db, engine, await siteNode(db, nodeId))
        return true
      } catch (error) {
        if (error instanceof Problem) return false
        throw error
      }
    },

    async setPassword(trx, userId, password) {
      const user = await findUserRow(trx, userId)
      if (!user || user.status === 'deleting') throw new Error(`The database user ${userId} is gone`)
      await changeUser(trx, writers, user, {
        changes: { pending_verifier: context.secrets.seal(verifierFor(user.engine as EngineName, password)) },
        action: 'database_user.rotate_password',
        details: { reason: 'set by the site’s application' },
      })
    },

    async find(db, ids) {
      const database = await findDatabaseRow(db, ids.databaseId)
      const user = await findUserRow(db, ids.userId)
      if (!database || !user || database.status === 'deleting' || user.status === 'deleting') return null
      return describe(db, database, user)
    },
  }
}
