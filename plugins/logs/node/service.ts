// The `logs` node service: a site's access, error and PHP logs read as root, the last entries (`tail`) or what
// was written since a cursor (`follow`). Every request is checked again here: the panel's checks are not trusted.

import { join } from 'node:path'
import { NodeRefusal, type NodeService, type NodeSite } from '../../nodes/node/contract.ts'
import {
  type LogFilters,
  type LogKind,
  type LogsAnswer,
  type LogsRequest,
  logKinds,
  logsService,
  maxLines,
} from './protocol.ts'
import { followLog, type Owners, rotatedPaths, tailLog } from './read-log.ts'

/** Where `kind`'s log of a site is: nginx's in its `logs/` (root's), PHP's in `logs/php/` (its user's). */
export function logPath(home: string, kind: LogKind): string {
  if (kind === 'access') return join(home, 'logs', 'access.log')
  if (kind === 'error') return join(home, 'logs', 'error.log')
  return join(home, 'logs', 'php', 'error.log')
}

/**
 * Whose `kind`'s log may be: PHP's error log, in the site's user's folder, the node's (root) or the site's user's;
 * nginx's, in root's `logs/` where the site's user makes nothing, anyone's but the site's user's (nginx gives a log
 * it reopens to its workers' user).
 */
function ownersOf(site: NodeSite, kind: LogKind): Owners {
  const node = process.getuid?.() ?? 0
  const user = site.user?.uid ?? null
  if (kind === 'php') return (uid) => uid === node || uid === user
  return (uid) => uid === node || uid !== user
}

const refuse = (message: string): never => {
  throw new NodeRefusal('invalid_log_request', message)
}

/** The filters as the node accepts them. */
function checkedFilters(value: unknown): LogFilters {
  if (typeof value !== 'object' || value === null) return refuse('filters must be an object')
  const { since, status, search } = value as Record<string, unknown>
  if (since !== undefined && (typeof since !== 'string' || Number.isNaN(Date.parse(since))))
    refuse('since must be an ISO time')
  if (search !== undefined && (typeof search !== 'string' || search.length > 200))
    refuse('search is too long')
  if (status !== undefined) {
    const ranges = status as unknown[]
    if (!Array.isArray(ranges) || ranges.length > 20) refuse('status must be at most 20 ranges')
    for (const range of ranges) {
      const [low, high] = Array.isArray(range) ? range : []
      if (!Number.isInteger(low) || !Number.isInteger(high) || low < 100 || high > 599 || low > high)
        refuse('each status range is two statuses, 100 to 599')
    }
  }
  return value as LogFilters
}

/** The request as the node accepts it. */
function checkedRequest(value: unknown): LogsRequest {
  if (typeof value !== 'object' || value === null) return refuse('the request must be an object')
  const request = value as Record<string, unknown>
  if (!logKinds.includes(request.kind as LogKind)) refuse('unknown log kind')
  const filters = checkedFilters(request.filters ?? {})
  if (request.op === 'tail') {
    const lines = request.lines
    if (!Number.isInteger(lines) || (lines as number) < 1 || (lines as number) > maxLines)
      refuse(`lines must be 1 to ${maxLines}`)
    return { op: 'tail', kind: request.kind as LogKind, lines: lines as number, filters }
  }
  if (request.op === 'follow') {
    const cursor = request.cursor as { inode?: unknown; offset?: unknown } | null
    if (
      cursor !== null &&
      (typeof cursor !== 'object' ||
        !Number.isSafeInteger(cursor.inode) ||
        !Number.isSafeInteger(cursor.offset) ||
        (cursor.inode as number) < 0 ||
        (cursor.offset as number) < 0)
    )
      refuse('cursor must be { inode, offset }')
    return { op: 'follow', kind: request.kind as LogKind, cursor: cursor as never, filters }
  }
  return refuse('op must be tail or follow')
}

/** The `logs` service. */
export function logsNodeService(): NodeService {
  return {
    name: logsService,
    async handle(site, value): Promise<LogsAnswer> {
      const request = checkedRequest(value)
      const path = logPath(site.home, request.kind)
      const owners = ownersOf(site, request.kind)
      if (request.op === 'tail')
        return tailLog(rotatedPaths(path), owners, request.kind, request.lines, request.filters)
      return followLog(path, owners, request.kind, request.cursor, request.filters)
    },
  }
}
