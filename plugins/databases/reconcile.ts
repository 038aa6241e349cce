// The databases plugin's part of a node's reconciliation: the node's own database server lives in the node's data
// directory, so a rebuilt node's server starts empty. Each `active` database the panel keeps there that the server
// no longer has is made again (empty) by its own `database.sync` job; a site provisioned again then puts its own login
// back (a new password), and logins nobody can give a password to again are reported as drift by the periodic check.
// Sites' logins on servers staff added follow their node's address: a node whose `hostname` changed has them granted
// to the new one.

import { type JobRun, jobIsLive, type PluginContext } from '../../core/index.ts'
import { type Node, type NodeReconciler, type ReconcileOutcome, siteLocators } from '../nodes/contract.ts'
import { changeUser, startDatabaseSync } from './lifecycle.ts'
import type { DatabasesTables } from './migrations.ts'
import { activeDatabasesOn, findDatabaseRow, findServerRow, findUserRow } from './repository.ts'
import { accessOf, type Engines, serverEngines } from './server-access.ts'
import { siteLoginHosts, siteNodeOf } from './site-reach.ts'

/** The reconciler of the databases on nodes' own servers, and of the hosts of the logins of sites on nodes. */
export function databaseReconciler(context: PluginContext, engines: Engines): NodeReconciler {
  return {
    name: 'databases',
    async reconcile(job, { node, inventory, staffAsked }) {
      const rehosted = await rehostLogins(
        job,
        node,
        inventory.sites.map((site) => site.id),
      )
      const own = await ownServer(job, node, staffAsked)
      return { reapplied: rehosted + own.reapplied, ...(own.held ? { held: own.held } : {}) }
    },
  }

  /**
   * Site logins on servers staff added follow their node's address as its record names it now (`hostname` changed:
   * the node moved): granted to the new one, through the same sync job as any change of hosts. Only for sites the
   * panel places on this node: a node naming another node's sites moves no login of theirs.
   */
  async function rehostLogins(job: JobRun, node: Node, held: readonly string[]): Promise<number> {
    const located = new Map<string, string>()
    for (let start = 0; start < held.length; start += 500)
      for (const locator of context.extensionPoint(siteLocators).list())
        for (const [id, site] of await locator.locate(held.slice(start, start + 500)))
          located.set(id, site.nodeId)
    const own = held.filter((id) => located.get(id) === node.id)
    const at = siteNodeOf(node)
    let rehosted = 0
    for (let start = 0; start < own.length; start += 500) {
      const logins = await context.db
        .withTables<DatabasesTables>()
        .selectFrom('database_users')
        .selectAll()
        .where('site_id', 'in', own.slice(start, start + 500))
        .where('status', '=', 'active')
        .execute()
      for (const login of logins) {
        const server = await findServerRow(context.db, login.server_id)
        if (!server || server.node_id !== null) continue
        const hosts = siteLoginHosts(server, at)
        if (sameHosts(login.allowed_hosts, hosts)) continue
        const moved = await job.transaction(async (trx) => {
          const now = await findUserRow(trx, login.id)
          if (now?.status !== 'active' || now.allowed_hosts !== login.allowed_hosts) return false
          if (now.job_id && (await jobIsLive(trx, now.job_id))) return false
          await changeUser(trx, context, now, {
            changes: { allowed_hosts: JSON.stringify(hosts) },
            action: 'database_user.update',
            details: { allowedHosts: hosts, reason: `its site's node ${node.name} is at ${node.hostname}` },
          })
          return true
        })
        if (moved) rehosted++
      }
    }
    return rehosted
  }

  /** The databases on the node's own server that the server lost, made again (empty). */
  async function ownServer(job: JobRun, node: Node, staffAsked: boolean): Promise<ReconcileOutcome> {
    const server = await context.db
      .withTables<DatabasesTables>()
      .selectFrom('database_servers')
      .selectAll()
      .where('node_id', '=', node.id)
      .where('status', '!=', 'disabled')
      .executeTakeFirst()
    if (!server) return { reapplied: 0 }
    const databases = await activeDatabasesOn(context.db, server.id)
    if (databases.length === 0) return { reapplied: 0 }
    // What the server holds of them, asked of the node (which runs the engine's operations itself).
    const held = await serverEngines(
      context,
      engines,
    )(server).databaseSizes(
      accessOf(context.secrets, server),
      databases.map((row) => row.name),
    )
    // None of them there: a rebuilt node, or one whose data directory is not mounted yet (its server started
    // empty over the mount point). Made again only when staff ask (NodeReport.staffAsked).
    if (!staffAsked && databases.every((row) => !held.has(row.name))) {
      context.log.warn(
        { nodeId: node.id, serverId: server.id, count: databases.length },
        `node ${node.name}'s own database server holds none of its databases: held until staff ask for the node's reconciliation`,
      )
      return { reapplied: 0, held: databases.length }
    }
    let reapplied = 0
    for (const row of databases) {
      if (held.has(row.name)) continue
      const started = await job.transaction(async (trx) => {
        const now = await findDatabaseRow(trx, row.id)
        if (now?.status !== 'active') return false
        if (now.job_id && (await jobIsLive(trx, now.job_id))) return false
        const moved = await startDatabaseSync(trx, context.enqueueJob, now)
        await context.audit(trx, {
          action: 'database.recreate',
          subject: { type: 'database', id: now.id },
          customerId: now.customer_id,
          details: {
            reason: 'missing on its node’s own server (the node was rebuilt)',
            serverId: server.id,
            nodeId: node.id,
            jobId: moved.job_id,
          },
        })
        return true
      })
      if (started) reapplied++
    }
    if (reapplied > 0)
      context.log.warn(
        { nodeId: node.id, serverId: server.id, count: reapplied },
        `node ${node.name}'s own database server lost databases: made again, empty`,
      )
    return { reapplied }
  }
}

/** Whether a login's recorded hosts (JSON) are `hosts`, in any order. */
function sameHosts(recorded: string, hosts: readonly string[]): boolean {
  const current = JSON.parse(recorded) as string[]
  return current.length === hosts.length && hosts.every((host) => current.includes(host))
}
