// The limits check (`site.limitsCheck`): every few minutes, for each node's active sites, it sends an update to those
// whose limits changed since their node was given them (a plan's limits, a subscription, the node's defaults), then
// reads what they use and tells a site that keeps hitting a limit (`site.limitReached`). A change of a node's
// defaults runs it for that node at once.

import { type JobDefinition, type JobRun, jobIsLive, type PluginContext, type Trx } from '../../core/index.ts'
import { type Node, type NodeWatcher, nodeDirectory, requireReachableNode } from '../nodes/contract.ts'
import { siteJobKinds } from './jobs.ts'
import { noteReading } from './limit-watch.ts'
import type { SitesTable } from './migrations.ts'
import {
  activeSitesOn,
  claimLimitsCheck,
  findSiteRow,
  nodesWithActiveSites,
  toSite,
  updateSite,
} from './repository.ts'
import { effectiveLimits, limitsDiffer, siteRunLimits, specLimitsOf } from './site-limits.ts'
import { readResources, resourceKinds, resourcesAnswer, resourcesTimeoutMs } from './site-resources.ts'

/** The job kind of the limits check; its subject is a node (`nod_…`) or `all`. */
export const limitsCheckKind = 'site.limitsCheck'

/** How often the limits check runs by default: every five minutes. */
export const defaultLimitsCheckIntervalMs = 5 * 60 * 1000

/** Starts the limits check of `nodeId` (or of every node: `all`) in `trx`. */
export function startLimitsCheck(
  trx: Trx,
  context: Pick<PluginContext, 'enqueueJob'>,
  nodeId: string,
): Promise<string> {
  return context.enqueueJob(trx, {
    kind: limitsCheckKind,
    customerId: null,
    subject: { type: 'node', id: nodeId },
  })
}

/** The sites plugin's node watcher: a change of a node's defaults is applied to its sites at once. */
export function limitsWatcher(context: PluginContext): NodeWatcher {
  return {
    name: 'sites.limits',
    async reported() {},
    async siteDefaultsChanged(trx, node) {
      await startLimitsCheck(trx, context, node.id)
    },
  }
}

/** The limits check's job. */
export function limitsCheckJob(context: PluginContext): JobDefinition {
  const nodes = context.use(nodeDirectory)

  /**
   * Starts a `site.update` for a site whose node was given other limits than it runs under now, unless a job works
   * on it already (it reads the limits as they are when it runs). Audited as `site.applyLimits`.
   */
  async function applyIfChanged(job: JobRun, node: Node, site: SitesTable): Promise<boolean> {
    return job.transaction(async (trx) => {
      const row = await findSiteRow(trx, site.id)
      if (row?.status !== 'active' || row.node_id !== node.id) return false
      const run = await siteRunLimits(trx, context.quotas, row, node)
      if (!limitsDiffer(row, run)) return false
      if (row.job_id && (await jobIsLive(trx, row.job_id))) return false
      const jobId = await context.enqueueJob(trx, {
        kind: siteJobKinds.update,
        customerId: row.customer_id,
        subject: { type: 'site', id: row.id },
      })
      const updated = await updateSite(trx, row.id, { job_id: jobId })
      await job.audit(trx, {
        action: 'site.applyLimits',
        subject: { type: 'site', id: row.id },
        customerId: row.customer_id,
        details: { jobId, ...specLimitsOf(run), sources: sourcesOf(run.limits) },
      })
      await job.emit(trx, { kind: 'site.updated', customerId: row.customer_id, data: toSite(updated) })
      return true
    })
  }

  /** Reads what the node's sites use and tells those that keep hitting a limit; answers how many were told. */
  async function watchUse(job: JobRun, node: Node, sites: readonly SitesTable[]): Promise<number> {
    const readings = await readResources(
      nodes,
      node,
      sites.map((site) => site.id),
      AbortSignal.any([job.signal, AbortSignal.timeout(resourcesTimeoutMs * 3)]),
    )
    let told = 0
    for (const reading of readings) {
      const site = sites.find((item) => item.id === reading.siteId)
      if (!site) continue
      const answer = resourcesAnswer(reading, await effectiveLimits(context.db, context.quotas, site, node))
      await job.transaction(async (trx) => {
        for (const kind of resourceKinds) {
          const use = answer[kind]
          if (!(await noteReading(trx, site.id, kind, use.hits24h))) continue
          told++
          await job.emit(trx, {
            kind: 'site.limitReached',
            customerId: site.customer_id,
            data: {
              siteId: site.id,
              customerId: site.customer_id,
              kind,
              hits24h: use.hits24h,
              limit: use.limit,
            },
          })
        }
      })
    }
    return told
  }

  return {
    kind: limitsCheckKind,
    description:
      'The limits check, every few minutes and when a node’s `siteDefaults` change: starts a `site.update` for each active site whose limits changed since its node was given them (audited `site.applyLimits`), then reads what the sites use and sends `site.limitReached` for a site whose hits of a limit grew at consecutive readings (once per site and kind in 6 hours). A node whose agent is away is passed over whole (neither read nor sent updates) until the next round.',
    maxAttempts: 1,
    async run(job) {
      const ids = job.subject.id === 'all' ? await nodesWithActiveSites(context.db) : [job.subject.id]
      let updates = 0
      let told = 0
      const unread: string[] = []
      for (const id of ids) {
        const node = await nodes.find(id)
        if (!node) continue
        const sites = await activeSitesOn(context.db, node.id)
        if (sites.length === 0) continue
        try {
          // A node whose agent is away is passed over whole: its reading would wait out its timeout (node after
          // node), and an update per site would hold a worker each until the agent's silence fails it. What it
          // has not taken is sent at the first round after it is back.
          requireReachableNode(node)
          for (const site of sites) if (await applyIfChanged(job, node, site)) updates++
          told += await watchUse(job, node, sites)
        } catch (error) {
          // One node away (or older than the panel) holds back no other: it is seen to again at the next round.
          if (job.signal.aborted) throw error
          unread.push(node.id)
          context.log.info({ nodeId: node.id, err: String(error) }, 'sites’ resources not read')
        }
      }
      return { nodes: ids.length, updates, told, unread }
    },
  }
}

/** Where each of the limits came from, for the audit entry. */
function sourcesOf(limits: Awaited<ReturnType<typeof effectiveLimits>>) {
  return {
    cpuPercent: limits.cpuPercent.source,
    memoryMB: limits.memoryMB.source,
    processes: limits.processes.source,
  }
}

/**
 * Looks every minute (or sooner, for short intervals) whether the limits check is due, and starts it for every node
 * when this instance claims it (several instances sharing a store start it once). Answers how to stop.
 */
export function limitsCheckSchedule(context: PluginContext, intervalMs: number): () => void {
  const look = async () => {
    try {
      await context.transaction(async (trx) => {
        if (await claimLimitsCheck(trx, intervalMs)) await startLimitsCheck(trx, context, 'all')
      })
    } catch (error) {
      context.log.warn({ err: error }, 'could not schedule the limits check')
    }
  }
  const timer = setInterval(() => void look(), Math.min(intervalMs, 60_000))
  // A check is not a reason to keep the process alive.
  timer.unref?.()
  void look()
  return () => clearInterval(timer)
}
