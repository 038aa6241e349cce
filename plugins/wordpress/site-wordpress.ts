// The panel's side of WordPress operations: the site found in the caller's view (404 otherwise), a WordPress site
// (409 otherwise), running (409 when suspended or not ready), the operation sent to its node's `wordpress` service
// (whose refusals come back as this plugin's problems), and an audit entry for every operation that succeeded.

import {
  type AuditInput,
  orNotFound,
  type PluginContext,
  Problem,
  type ProblemRef,
  type TenantView,
  type Trx,
} from '../../core/index.ts'
import { type Node, type NodeDirectory, NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import { requireRunningSite, runningSiteProblems, type SiteRef, siteDirectory } from '../sites/contract.ts'
import type { WordPressTables } from './migrations.ts'
import { wordpressProblems as problems } from './problems.ts'
import { type WordPressOperation, wordpressService } from './protocol.ts'

/** How long the panel waits for a node to run one operation (the runner's own limit is the same). */
const callTimeoutMs = 300_000

/**
 * Sends `request` to the `wordpress` service of `node`, for `site` (its domain goes along, WordPress's idea of the
 * request's host), within the operation's time limit: what every WordPress operation on a site goes through, from a
 * route or from a job (a clone's search-replace).
 */
export function callWordPress(
  nodes: NodeDirectory,
  node: Node,
  site: { readonly id: string; readonly domain: string },
  request: WordPressOperation,
  signal: AbortSignal,
): Promise<unknown> {
  return nodes.call(
    node,
    { siteId: site.id, service: wordpressService, request: { ...request, domain: site.domain } },
    AbortSignal.any([signal, AbortSignal.timeout(callTimeoutMs)]),
  )
}

/** The refusals every WordPress operation may answer, besides its own. */
export const operationProblems: readonly ProblemRef[] = [
  ...runningSiteProblems,
  problems.not_a_wordpress_site,
  problems.wordpress_not_installed,
  problems.wordpress_error,
  problems.wordpress_output_too_large,
  problems.wordpress_unavailable,
]

/** The problem for a node's refusal: the same code, or `wordpress_unavailable` for one the panel does not know. */
function problemOf(refusal: NodeRefusal): Problem {
  const ref = (problems as Record<string, ProblemRef>)[refusal.code]
  if (!ref || refusal.code === 'weak_admin_password') return new Problem(problems.wordpress_unavailable)
  const extensions = Object.fromEntries(
    Object.entries(refusal.details ?? {}).filter(([name]) => /^[a-z][A-Za-z]*$/.test(name)),
  )
  return new Problem(ref, { detail: refusal.message, extensions })
}

/** The audit entry of an operation, without the subject and customer (the site's); `details` may read the answer. */
export interface OperationAudit {
  readonly action: string
  readonly details?: AuditInput['details'] | ((answer: never) => AuditInput['details'])
}

/** A WordPress site as one caller reaches it. */
export interface SiteWordPress {
  readonly site: SiteRef
  /**
   * Runs `request` on the site's node and records `audit` (subject the site) once it succeeded; a refusal becomes
   * its problem, an unreachable node 503 `wordpress_unavailable`.
   */
  run<T>(request: WordPressOperation, audit: OperationAudit): Promise<T>
}

/** Opens the WordPress of site `siteId` for `view`; `audit` is the route's `audit` (from its handler input). */
export function siteWordPressOf(context: PluginContext) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  return async (
    view: TenantView,
    siteId: string,
    audit: (trx: Trx, entry: AuditInput) => Promise<void>,
    signal: AbortSignal,
  ): Promise<SiteWordPress> => {
    const site = orNotFound(await sites.find(context.db, view, siteId))
    const wordpress = await context.db
      .withTables<WordPressTables>()
      .selectFrom('wordpress_sites')
      .select('site_id')
      .where('site_id', '=', site.id)
      .executeTakeFirst()
    if (!wordpress) throw new Problem(problems.not_a_wordpress_site)
    requireRunningSite(site)
    const node = site.nodeId ? await nodes.find(site.nodeId) : null
    if (!node) throw new Problem(problems.wordpress_unavailable, { detail: 'The site has no node.' })
    if (node.agent.capabilities?.mode === 'files-only') throw new Problem(problems.wordpress_not_installed)
    return {
      site,
      async run<T>(request: WordPressOperation, entry: OperationAudit): Promise<T> {
        let answer: unknown
        try {
          answer = await callWordPress(nodes, node, site, request, signal)
        } catch (error) {
          if (error instanceof NodeRefusal) throw problemOf(error)
          // Never the request: it may carry a password.
          context.log.warn(
            { siteId: site.id, op: request.op, err: String(error) },
            'WordPress operation failed on the node',
          )
          throw new Problem(problems.wordpress_unavailable)
        }
        const details = typeof entry.details === 'function' ? entry.details(answer as never) : entry.details
        await context.transaction((trx) =>
          audit(trx, {
            action: entry.action,
            ...(details ? { details } : {}),
            subject: { type: 'site', id: site.id },
            customerId: site.customerId,
          }),
        )
        return answer as T
      },
    }
  }
}
