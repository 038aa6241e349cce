// The databases plugin's part of a node's reconciliation: the node's own database server lives in the node's data
// directory, so a rebuilt node's server starts empty. Each `active` database the panel keeps there that the server
// no longer has is made again (empty) by its own `database.sync` job; a site provisioned again then puts its own login
// back (a new password), and logins nobody can give a password to again are reported as drift by the periodic check.

import { jobIsLive, type PluginContext } from '../../core/index.ts'
import type { NodeReconciler } from '../nodes/contract.ts'
import { startDatabaseSync } from './lifecycle.ts'
import type { DatabasesTables } from './migrations.ts'
import { activeDatabasesOn, findDatabaseRow } from './repository.ts'
import { accessOf, type Engines, serverEngines } from './server-access.ts'

/** The reconciler of the databases on nodes' own servers. */
export function databaseReconciler(context: PluginContext, engines: Engines): NodeReconciler {
  return {
    name: 'databases',
    async reconcile(job, { node }) {
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
    },
  }
}
