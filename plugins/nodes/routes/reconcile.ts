// Reconciling a node now (platform staff): what the node holds is asked and compared with the panel's records at
// once, rather than at its agent's next connection or the next periodic round.

import {
  type Db,
  defineRoute,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  t,
  visibleTable,
} from '../../../core/index.ts'
import { nodeScopes } from '../contract.ts'
import type { NodesTables } from '../migrations.ts'
import { nodesProblems } from '../problems.ts'
import { startReconcile } from '../reconcile.ts'
import { toNode } from '../repository.ts'

const Reconciliation = t.Object(
  {
    jobId: t.String({
      description:
        'The node’s `node.reconcile` job, `job_…`: a new one, or the one already under way. Its `result` says how many sites the node holds, how many things were put back (`reapplied`) and how many it holds unknown.',
    }),
  },
  { $id: 'NodeReconciliation' },
)

/** Nodes are the platform's own: only platform staff reach them. */
const nodes = visibleTable((db: Db) => db.withTables<NodesTables>(), 'nodes', 'platform')

/** The route. */
export function reconcileRoutes(context: PluginContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/nodes/:id/reconcile',
      operationId: 'reconcileNode',
      summary: 'Reconcile a node now',
      description:
        'Platform staff only. Starts the node’s `node.reconcile` job (202 with `jobId`; the one under way when there is one): the node reports what it holds, sites missing there are provisioned again (`site.drifted`), certificates and states put right, and what it holds that the panel does not know is recorded on the node (`inventory.unknown`, `node.drifted`) and left alone. Nodes are reconciled by themselves at each connection of their agent and every ten minutes; this is for an operator who just repaired one. A node whose agent is not connected, or that is disabled, is 503 `node_unavailable`.',
      scope: nodeScopes.manage,
      staff: true,
      params: { id: 'nod' },
      responses: { 202: { description: 'The reconciliation’s job.', schema: Reconciliation } },
      problems: [nodesProblems.node_unavailable],
      change: { action: 'node.reconcile' },
      async handler({ trx, params, view }) {
        const row = await nodes.find(trx, view, params.id)
        if (row.status === 'disabled')
          throw new Problem(nodesProblems.node_unavailable, { detail: 'The node is disabled.' })
        if (!toNode(row).agent.connected)
          throw new Problem(nodesProblems.node_unavailable, {
            detail: 'The node’s agent is not connected: it is reconciled when it connects again.',
          })
        const started = await startReconcile(trx, context, row.id)
        const jobId = started ?? (await nodes.find(trx, view, params.id)).reconcile_job_id ?? ''
        return recorded(
          { jobId },
          {
            subject: { type: 'node', id: row.id },
            customerId: null,
            details: { jobId, started: started !== null },
          },
        )
      },
    }),
  ]
}
