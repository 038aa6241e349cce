// The panel's side of a site's files: the site found in the caller's view (404 otherwise), refused unless it is
// running, and the request sent to its node's `files` service, whose refusals come back as this plugin's problems.

import {
  orNotFound,
  type PluginContext,
  Problem,
  type ProblemRef,
  type TenantView,
} from '../../core/index.ts'
import { NodeRefusal, nodeDirectory, nodeUnavailable, requireReachableNode } from '../nodes/contract.ts'
import { requireRunningSite, runningSiteProblems, type SiteRef, siteDirectory } from '../sites/contract.ts'
import { filesProblems as problems } from './problems.ts'
import { type FilesRequest, filesService } from './protocol.ts'

/** How long the panel waits for a node to answer one file operation. */
const callTimeoutMs = 120_000

/** Node refusal codes the API names otherwise. */
const renamed: Readonly<Record<string, string>> = {
  etag_mismatch: 'file_changed',
  directory_not_empty: 'is_a_directory',
  site_not_on_node: 'site_not_ready',
}

/** Where a refusal for want of room points, by operation: the bytes sent, or the path that would have grown. */
const roomLocations: Readonly<Partial<Record<FilesRequest['op'], string>>> = {
  'upload-part': 'body',
  'upload-commit': 'body',
  copy: 'body.to',
  move: 'body.to',
  mkdir: 'body.path',
  archive: 'body.to',
  extract: 'body.to',
}

/** Every problem a node's refusal may become, by code. */
const refusalProblems: ReadonlyMap<string, ProblemRef> = new Map(
  [...Object.values(problems), ...runningSiteProblems, nodeUnavailable].map((ref) => [ref.code, ref]),
)

/** The problem for a node's refusal (its code, or what the API calls it; the node's own failures a 502). */
function problemOf(refusal: NodeRefusal, log: PluginContext['log'], op: FilesRequest['op']): Problem {
  const ref = refusalProblems.get(renamed[refusal.code] ?? refusal.code)
  if (!ref || ref.code === problems.file_operation_failed.code) {
    log.warn({ code: refusal.code, details: refusal.details }, 'the node failed a file operation')
    return new Problem(problems.file_operation_failed)
  }
  // What the node said besides its code, as members of the problem (never its own reasons).
  const extensions = Object.fromEntries(
    Object.entries(refusal.details ?? {}).filter(
      ([name, value]) => /^[a-z][A-Za-z]*$/.test(name) && name !== 'reason' && value !== undefined,
    ),
  )
  // A file changed meanwhile: its current tag in `ETag`, as every 412 of a conditional request carries it.
  const etag = ref.code === problems.file_changed.code ? extensions.etag : undefined
  const headers: Record<string, string> = typeof etag === 'string' ? { etag } : {}
  const location = ref.code === problems.disk_quota_exceeded.code ? roomLocations[op] : undefined
  const errors = location ? [{ location, message: refusal.message, code: ref.code }] : undefined
  return new Problem(ref, { detail: refusal.message, extensions, headers, ...(errors ? { errors } : {}) })
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
    requireReachableNode(node)
    return {
      site,
      async call<T>(request: FilesRequest, signal?: AbortSignal, timeoutMs = callTimeoutMs): Promise<T> {
        const timeout = AbortSignal.timeout(timeoutMs)
        try {
          return (await nodes.call(
            node,
            { siteId: site.id, service: filesService, request },
            signal ? AbortSignal.any([signal, timeout]) : timeout,
          )) as T
        } catch (error) {
          if (error instanceof NodeRefusal) throw problemOf(error, context.log, request.op)
          if (error instanceof Problem) throw error
          context.log.warn(
            { siteId: site.id, op: request.op, err: String(error) },
            'file operation failed on the node',
          )
          throw new Problem(nodeUnavailable)
        }
      },
    }
  }
}
