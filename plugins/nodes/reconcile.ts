// Reconciliation: a node reports what it holds (the `inventory` operation) at every connection of its agent, at the
// panel's start for the local node, and periodically; the `node.reconcile` job hands it to the plugins whose records
// live on nodes (their reconcilers put back what is missing through jobs of their own) and records on the node what
// it holds that nobody knows, which is reported (`node.drifted`) and never removed.

import {
  type JobDefinition,
  type JobRun,
  jobIsLive,
  nowIso,
  type PluginContext,
  type Trx,
} from '../../core/index.ts'
import {
  type NodeInventoryState,
  nodeCommand,
  nodeDirectory,
  nodeReconcilers,
  type UnknownOnNode,
} from './contract.ts'
import type { NodesTables } from './migrations.ts'
import { findNodeRow, toNode, updateNode } from './repository.ts'

/** The job kind. */
export const reconcileJobKind = 'node.reconcile'

/** How often every node is reconciled besides at its agent's connections, by default: ten minutes. */
export const defaultReconcileIntervalMs = 10 * 60_000

/** Most unknown things kept on the node's record (the rest are counted in the job's result). */
const unknownKept = 1000

/**
 * Starts the node's `node.reconcile` job in `trx`, unless one is live already (a reconciliation asked for twice, by
 * an agent's connection and the schedule, runs once). Answers the job's id, or null when none was started.
 */
export async function startReconcile(
  trx: Trx,
  context: Pick<PluginContext, 'enqueueJob'>,
  nodeId: string,
): Promise<string | null> {
  const row = await findNodeRow(trx, nodeId)
  if (!row || row.status === 'disabled') return null
  if (row.reconcile_job_id && (await jobIsLive(trx, row.reconcile_job_id))) return null
  const jobId = await context.enqueueJob(trx, {
    kind: reconcileJobKind,
    customerId: null,
    subject: { type: 'node', id: nodeId },
  })
  await updateNode(trx, nodeId, { reconcile_job_id: jobId })
  return jobId
}

/**
 * Starts every node's reconciliation every `intervalMs` (nodes whose agent is away are passed over: their next
 * connection reconciles them). Several instances sharing a store start one job a node, as {@link startReconcile}
 * says. Answers how to stop.
 */
export function reconcileSchedule(context: PluginContext, intervalMs: number): () => void {
  const look = async () => {
    try {
      const nodes = await context.db
        .withTables<NodesTables>()
        .selectFrom('nodes')
        .selectAll()
        .where('status', '!=', 'disabled')
        .execute()
      for (const row of nodes) {
        if (!toNode(row).agent.connected) continue
        // Not before the interval passed since the last one (another instance may have started it).
        const last = row.inventory
          ? Date.parse((JSON.parse(row.inventory) as NodeInventoryState).checkedAt)
          : 0
        if (Date.now() - last < intervalMs * 0.9) continue
        await context.transaction((trx) => startReconcile(trx, context, row.id))
      }
    } catch (error) {
      context.log.warn({ err: error }, 'could not schedule the nodes’ reconciliation')
    }
  }
  const timer = setInterval(() => void look(), intervalMs)
  // Reconciling is not a reason to keep the process alive.
  timer.unref?.()
  return () => clearInterval(timer)
}

/** The `node.reconcile` job, sending through the node directory (the one path to nodes). */
export function reconcileJob(context: PluginContext): JobDefinition {
  async function run(job: JobRun) {
    const nodes = context.use(nodeDirectory)
    const node = await nodes.find(job.subject.id)
    if (!node || node.status === 'disabled') return { skipped: true }
    // Its next connection reconciles it.
    if (!node.agent.connected) return { skipped: true, reason: 'agent not connected' }
    await job.progress(10, `Asking node ${node.name} what it holds`)
    const askedAt = nowIso()
    const inventory = await nodes.send(node, nodeCommand('inventory', {}), job.signal, {
      jobId: job.id,
      attempt: job.attempt,
    })
    let reapplied = 0
    const unknown: UnknownOnNode[] = inventory.strays.map((stray) => ({ kind: stray.kind, name: stray.name }))
    const reconcilers = context.extensionPoint(nodeReconcilers).list()
    for (const [index, reconciler] of reconcilers.entries()) {
      await job.progress(20 + Math.round((index / reconcilers.length) * 70), `Reconciling ${reconciler.name}`)
      const outcome = await reconciler.reconcile(job, { node, inventory, askedAt })
      reapplied += outcome.reapplied
      unknown.push(...(outcome.unknown ?? []))
    }
    const state: NodeInventoryState = {
      checkedAt: nowIso(),
      sites: inventory.sites.length,
      reapplied,
      unknown: unknown.slice(0, unknownKept),
    }
    await job.transaction(async (trx) => {
      const now = await findNodeRow(trx, node.id)
      if (!now) return
      const before = now.inventory === null ? null : (JSON.parse(now.inventory) as NodeInventoryState)
      await updateNode(trx, node.id, { inventory: JSON.stringify(state) })
      // Said once per new finding, as `database_user.drifted` is.
      const key = (found: readonly UnknownOnNode[]) =>
        found
          .map((item) => `${item.kind}:${item.name}`)
          .sort()
          .join(',')
      if (state.unknown.length > 0 && key(state.unknown) !== key(before?.unknown ?? [])) {
        const changed = await nodes.find(node.id, trx)
        if (changed) await job.emit(trx, { kind: 'node.drifted', customerId: null, data: changed })
      }
    })
    if (unknown.length > 0)
      context.log.warn(
        { nodeId: node.id, unknown: unknown.slice(0, 20), count: unknown.length },
        `node ${node.name} holds what the panel does not know (left alone)`,
      )
    return { sites: inventory.sites.length, reapplied, unknown: unknown.length }
  }

  return {
    kind: reconcileJobKind,
    description:
      'Asks a node what it holds (sites, certificates, SFTP accounts) and has each plugin put back what is missing through its own jobs; what the node holds that the panel does not know is recorded on the node (`inventory.unknown`, `node.drifted`) and left alone.',
    maxAttempts: 3,
    timeoutMs: 300_000,
    run,
  }
}
