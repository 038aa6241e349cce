// The panel's side of a site's files: the site found in the caller's view (404 otherwise), refused unless it is
// running, and the request sent to its node's `files` service, whose refusals come back as this plugin's problems.

import { orNotFound, type PluginContext, Problem, type TenantView } from '../../core/index.ts'
import { NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import { requireRunningSite, type SiteRef, siteDirectory } from '../sites/contract.ts'
import { filesProblems as problems } from './problems.ts'
import { type FilesRequest, filesService } from './protocol.ts'

/** How long the panel waits for a node to answer one file operation. */
const callTimeoutMs = 120_000

/** The problem for a node's refusal code (the same code, except where the API names it otherwise). */
function problemOf(refusal: NodeRefusal): Problem {
  const code = refusal.code === 'etag_mismatch' ? 'file_changed' : refusal.code
  const ref =
    code === 'directory_not_empty'
      ? problems.is_a_directory
      : (problems as Record<string, (typeof problems)[keyof typeof problems]>)[code]
  if (!ref) return new Problem(problems.node_unavailable, { detail: refusal.message })
  const extensions = Object.fromEntries(
    Object.entries(refusal.details ?? {}).filter(
      ([name]) => /^[a-z][A-Za-z]*$/.test(name) && name !== 'suspended',
    ),
  )
  return new Problem(ref, { detail: refusal.message, extensions })
}

/** A site's files as one caller reaches them. */
export interface SiteFiles {
  readonly site: SiteRef
  /** Sends `request` to the site's node; a refusal becomes its problem, an unreachable node 503. */
  call<T>(request: FilesRequest, signal?: AbortSignal, timeoutMs?: number): Promise<T>
}

/** Opens the site `siteId` for `view`, or 404 (not visible), 409 (not running). */
export function siteFilesOf(context: PluginContext) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  return async (view: TenantView, siteId: string): Promise<SiteFiles> => {
    const site = orNotFound(await sites.find(context.db, view, siteId))
    requireRunningSite(site)
    const node = site.nodeId ? await nodes.find(site.nodeId) : null
    if (!node) throw new Problem(problems.node_unavailable, { detail: 'The site has no node.' })
    const driver = nodes.driverOf(node)
    return {
      site,
      async call<T>(request: FilesRequest, signal?: AbortSignal, timeoutMs = callTimeoutMs): Promise<T> {
        const timeout = AbortSignal.timeout(timeoutMs)
        try {
          return (await driver.call(
            node,
            { siteId: site.id, service: filesService, request },
            signal ? AbortSignal.any([signal, timeout]) : timeout,
          )) as T
        } catch (error) {
          if (error instanceof NodeRefusal) throw problemOf(error)
          if (error instanceof Problem) throw error
          context.log.warn(
            { siteId: site.id, op: request.op, err: String(error) },
            'file operation failed on the node',
          )
          throw new Problem(problems.node_unavailable)
        }
      },
    }
  }
}
