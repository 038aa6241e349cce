// What a node reports it can run, recorded on the node (an agent's at each poll, the local node's at the start, at each
// change of its readiness and once a minute), and
// the plugins that follow it told, in the same transaction, when it changed. A new run of an agent (its session) is a
// connection: the node is reconciled (reconcile.ts), so a rebuilt node gets back what it lost.

import { nowIso, type PluginContext, type Trx } from '../../core/index.ts'
import { nodeWatchers } from './contract.ts'
import type { NodesTable, NodesTables } from './migrations.ts'
import type { NodeCapabilities } from './node/contract.ts'
import { startReconcile } from './reconcile.ts'
import { findNodeRow, toNode } from './repository.ts'

/** What an agent said of itself besides its capabilities. */
export interface AgentPresence {
  readonly session?: string
  readonly version: string
}

/**
 * Records that `row`'s node was seen now, running `presence.version` with `capabilities`; when those differ from what
 * it last reported, in one transaction with the watchers' work (a node's own database server registered).
 */
export async function recordReport(
  context: PluginContext,
  row: NodesTable,
  presence: AgentPresence,
  capabilities: NodeCapabilities,
): Promise<void> {
  const recorded = JSON.stringify(capabilities)
  const seen = {
    agent_seen_at: nowIso(),
    agent_version: presence.version,
    ...(presence.session === undefined ? {} : { agent_session: presence.session }),
  }
  const nodes = (db: Trx | PluginContext['db']) => db.withTables<NodesTables>().updateTable('nodes')
  // A run of the agent the panel has not seen (started, restarted, its node rebuilt): what the node holds is asked,
  // in the transaction that records it seen (a job started before would find the agent not connected, and skip).
  const newRun = presence.session !== undefined && presence.session !== row.agent_session
  if (row.agent_capabilities === recorded) {
    if (!newRun) {
      await nodes(context.db).set(seen).where('id', '=', row.id).execute()
      return
    }
    await context.transaction(async (trx) => {
      await nodes(trx).set(seen).where('id', '=', row.id).execute()
      await startReconcile(trx, context, row.id)
    })
    return
  }
  await context.transaction(async (trx) => {
    await nodes(trx)
      .set({ ...seen, agent_capabilities: recorded })
      .where('id', '=', row.id)
      .execute()
    const node = await findNodeRow(trx, row.id)
    if (!node) return
    for (const watcher of context.extensionPoint(nodeWatchers).list())
      await watcher.reported(trx, toNode(node))
    if (newRun) await startReconcile(trx, context, row.id)
  })
}
