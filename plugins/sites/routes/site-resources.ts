// A site's limits and what it uses against them: `GET /sites/{id}/limits` (from the panel's records alone) and
// `GET /sites/{id}/resources` (asked of its node live, bounded).

import { defineRoute, type PluginContext, Problem, type RouteDefinition } from '../../../core/index.ts'
import {
  NodeUnreachable,
  nodeDirectory,
  nodeUnavailable,
  requireReachableNode,
} from '../../nodes/contract.ts'
import { siteScopes } from '../contract.ts'
import { sitesProblems } from '../problems.ts'
import { siteRows } from '../repository.ts'
import { effectiveLimits, SiteLimits, siteRunLimits } from '../site-limits.ts'
import { readResources, resourcesAnswer, resourcesTimeoutMs, SiteResourcesAnswer } from '../site-resources.ts'

const SiteParams = { id: 'site' } as const

/** The routes of a site's limits and resources. */
export function siteResourceRoutes(context: PluginContext): RouteDefinition[] {
  const nodes = context.use(nodeDirectory)

  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/limits',
      operationId: 'getSiteLimits',
      summary: 'Read the limits a site runs under',
      description:
        'Each limit the site runs under and where it comes from: the site’s own (`limits`, set by platform staff), else its customer’s plan (a plan’s `cpuPercent`, `memoryMB` and `processes` are each site’s; its `diskMB` is the customer’s total, shared out as the sites’ own `diskMB`), else its node’s `siteDefaults`; `none` where nothing sets one. What its node was last given may lag a change by the `site.update` job that applies it (for a plan’s change, until the next limits check, every few minutes).',
      scope: siteScopes.read,
      params: SiteParams,
      responses: { 200: { description: 'The site’s limits.', schema: SiteLimits } },
      async handler({ params, view }) {
        const row = await siteRows.find(context.db, view, params.id)
        const node = row.node_id ? await nodes.find(row.node_id) : null
        const run = await siteRunLimits(context.db, context.quotas, row, node)
        return { siteId: row.id, ...run.limits, allowFunctions: [...run.allowFunctions] }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/resources',
      operationId: 'getSiteResources',
      summary: 'Read what a site uses against its limits',
      description:
        'Asks the site’s node, live (10 s at most), what the site uses now of CPU (percent of one core), memory (MB), processes and disk (MB), against the limits it runs under (`GET /sites/{id}/limits`), how often each limit was hit in the last 24 hours, and whether the node enforces each kind (`enforced: false`: recorded, not applied there). A node that cannot be reached answers 503 `node_unavailable`; one that answers without them (an agent older than the panel) 503 `resources_unreported`; a site its node does not run (provisioning, failed, deleting) 409 `site_not_ready` with its `siteStatus`.',
      scope: siteScopes.read,
      params: SiteParams,
      responses: { 200: { description: 'The site’s use against its limits.', schema: SiteResourcesAnswer } },
      problems: [nodeUnavailable, sitesProblems.resources_unreported, sitesProblems.site_not_ready],
      async handler({ params, view, caller }) {
        const row = await siteRows.find(context.db, view, params.id)
        // A site its node does not run (provisioning, failed, being deleted) uses nothing there to read: said so, not
        // blamed on the node. A suspended one is read (its disk, and that nothing runs).
        if (row.status !== 'active' && row.status !== 'suspended')
          throw new Problem(sitesProblems.site_not_ready, { extensions: { siteStatus: row.status } })
        const node = row.node_id ? await nodes.find(row.node_id) : null
        requireReachableNode(node)
        const limits = await effectiveLimits(context.db, context.quotas, row, node)
        let readings: Awaited<ReturnType<typeof readResources>>
        try {
          readings = await readResources(nodes, node, [row.id], AbortSignal.timeout(resourcesTimeoutMs))
        } catch (error) {
          if (error instanceof Problem) throw error
          context.log.warn({ siteId: row.id, nodeId: node.id, err: String(error) }, 'resources not read')
          if (error instanceof NodeUnreachable || (error instanceof Error && error.name === 'TimeoutError'))
            throw new Problem(nodeUnavailable)
          // Why is the provider's to know (an agent too old, a failed read); the customer reads the code.
          throw new Problem(
            sitesProblems.resources_unreported,
            caller.kind === 'platform' ? { detail: `The node ${node.name} answered: ${String(error)}` } : {},
          )
        }
        const reading = readings.find((item) => item.siteId === row.id)
        if (!reading) throw new Problem(sitesProblems.resources_unreported)
        return resourcesAnswer(reading, limits)
      },
    }),
  ]
}
