// Reconciliation: a node reports what it holds (the `inventory` operation) at every connection of its agent, at the
// panel's start for the local node, and periodically; the `node.reconcile` job hands it to the plugins whose records
// live on nodes (their reconcilers put back what is missing through jobs of their own) and records on the node what
// it holds that nobody knows, which is reported (`node.drifted`) and never removed.

import {
  type JobDefinition,
  JobFailure,
  type JobRun,
  jobIsLive,
  nowIso,
  type PluginContext,
  type Trx,
} from '../../core/index.ts'
import {
  type InventoryStray,
  type NodeInventory,
  type NodeInventoryState,
  nodeCommand,
  nodeDirectory,
  nodeReconcilers,
  siteLocators,
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

/** The kinds of stray the node wing reports. */
const strayKinds = new Set<string>(['home', 'server-block', 'pool'])

/**
 * The node's answer, as reconcilers may read it: a node is not trusted to answer the shape it should (an agent of
 * another version, or one taken over), so an answer of another shape fails the job, and what is kept of it is cut to
 * the lengths the node's record declares (an agent could otherwise store megabytes on the node and in `node.drifted`).
 */
function checkedInventory(answer: unknown): NodeInventory {
  const value = answer as Partial<NodeInventory> | null
  const isString = (item: unknown): item is string => typeof item === 'string'
  const ok =
    typeof value === 'object' &&
    value !== null &&
    Array.isArray(value.sites) &&
    value.sites.every(
      (site) =>
        typeof site === 'object' &&
        site !== null &&
        isString(site.id) &&
        isString(site.domain) &&
        (site.state === 'active' || site.state === 'suspended') &&
        (site.certificate === null || isString(site.certificate)),
    ) &&
    Array.isArray(value.strays) &&
    value.strays.every(
      (stray) =>
        typeof stray === 'object' && stray !== null && strayKinds.has(stray.kind) && isString(stray.name),
    ) &&
    typeof value.services === 'object' &&
    value.services !== null &&
    Object.values(value.services).every(
      (held) =>
        typeof held === 'object' && held !== null && Array.isArray(held.ids) && held.ids.every(isString),
    )
  if (!ok)
    throw new JobFailure(
      'The node answered its inventory in a shape the panel does not read',
      'invalid_inventory',
    )
  return value as NodeInventory
}

/** An unknown thing as the node's record keeps it: its name and domain no longer than the record declares. */
const keptUnknown = (item: UnknownOnNode): UnknownOnNode => ({
  kind: item.kind,
  name: item.name.slice(0, 300),
  ...(item.domain === undefined ? {} : { domain: item.domain.slice(0, 253) }),
})

/**
 * Starts the node's `node.reconcile` job in `trx`, unless one is live already (a reconciliation asked for twice, by
 * an agent's connection and the schedule, runs once; staff's asked twice, once). Answers the job's id, or null when
 * none was started.
 */
export async function startReconcile(
  trx: Trx,
  context: Pick<PluginContext, 'enqueueJob'>,
  nodeId: string,
  options: { staffAsked?: boolean } = {},
): Promise<string | null> {
  const row = await findNodeRow(trx, nodeId)
  if (!row || row.status === 'disabled') return null
  const staffAsked = options.staffAsked === true
  // Staff's round puts back what an automatic one holds back: it starts beside a live automatic one.
  const blocking = staffAsked ? row.reconcile_staff_job_id : row.reconcile_job_id
  if (blocking && (await jobIsLive(trx, blocking))) return null
  const jobId = await context.enqueueJob(trx, {
    kind: reconcileJobKind,
    customerId: null,
    subject: { type: 'node', id: nodeId },
    input: { staffAsked },
  })
  await updateNode(trx, nodeId, {
    reconcile_job_id: jobId,
    ...(staffAsked ? { reconcile_staff_job_id: jobId } : {}),
  })
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
    const inventory = checkedInventory(
      await nodes.send(node, nodeCommand('inventory', {}), job.signal, {
        jobId: job.id,
        attempt: job.attempt,
      }),
    )
    let reapplied = 0
    let held = 0
    const unknown: UnknownOnNode[] = (await strangers(node.id, inventory.strays)).map((stray) => ({
      kind: stray.kind,
      name: stray.name,
    }))
    const reconcilers = context.extensionPoint(nodeReconcilers).list()
    const staffAsked = job.input.staffAsked === true
    for (const [index, reconciler] of reconcilers.entries()) {
      await job.progress(20 + Math.round((index / reconcilers.length) * 70), `Reconciling ${reconciler.name}`)
      const outcome = await reconciler.reconcile(job, { node, inventory, askedAt, staffAsked })
      reapplied += outcome.reapplied
      held += outcome.held ?? 0
      unknown.push(...(outcome.unknown ?? []))
    }
    const state: NodeInventoryState = {
      checkedAt: nowIso(),
      sites: inventory.sites.length,
      reapplied,
      held,
      unknown: unknown.slice(0, unknownKept).map(keptUnknown),
    }
    await job.transaction(async (trx) => {
      const now = await findNodeRow(trx, node.id)
      if (!now) return
      // Staff asked for a round after this automatic one started (job ids grow with time): what it finds is newer
      // than this one's answer (held back here, put back there), and it records it.
      const staffs = now.reconcile_staff_job_id
      if (!staffAsked && staffs !== null && staffs > job.id) return
      const before = now.inventory === null ? null : (JSON.parse(now.inventory) as NodeInventoryState)
      await updateNode(trx, node.id, { inventory: JSON.stringify(state) })
      // Said once per new finding, as `database_user.drifted` is: something found that the last round did not
      // find (what is no longer there, removed by the operator, is no drift).
      const key = (item: UnknownOnNode) => `${item.kind}:${item.name}`
      const known = new Set((before?.unknown ?? []).map(key))
      if (state.unknown.some((item) => !known.has(key(item)))) {
        const changed = await nodes.find(node.id, trx)
        if (changed) await job.emit(trx, { kind: 'node.drifted', customerId: null, data: changed })
      }
    })
    if (unknown.length > 0)
      context.log.warn(
        { nodeId: node.id, unknown: unknown.slice(0, 20), count: unknown.length },
        `node ${node.name} holds what the panel does not know (left alone)`,
      )
    if (held > 0)
      context.log.warn(
        { nodeId: node.id, held },
        `node ${node.name} holds none of what the panel placed there (rebuilt, or its disk not mounted?): nothing put back until staff ask for its reconciliation`,
      )
    return {
      sites: inventory.sites.length,
      reapplied,
      unknown: unknown.length,
      ...(held > 0 ? { held } : {}),
    }
  }

  /**
   * The strays that are no site the panel places on the node: a home without its `state.json`, or a server block
   * or pool without the home, of a site being provisioned or deleted there is the panel's own, half made or half
   * removed (and one it places there as `active` is put back by the sites' reconciler).
   */
  async function strangers(nodeId: string, strays: readonly InventoryStray[]): Promise<InventoryStray[]> {
    const names = [...new Set(strays.map((stray) => stray.name))]
    const ours = new Set<string>()
    for (let start = 0; start < names.length; start += 500)
      for (const locator of context.extensionPoint(siteLocators).list())
        for (const [id, site] of await locator.locate(names.slice(start, start + 500)))
          if (site.nodeId === nodeId) ours.add(id)
    return strays.filter((stray) => !ours.has(stray.name))
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
