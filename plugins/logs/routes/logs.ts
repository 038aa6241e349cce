// `GET /sites/{id}/logs/{access|error|php}`: the last entries of one of a site's logs as JSON, or, for a client
// that accepts `text/event-stream`, the same entries followed by every new one as it is written.

import {
  defineRoute,
  fieldProblem,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  t,
} from '../../../core/index.ts'
import {
  type Node,
  NodeRefusal,
  NodeUnreachable,
  nodeDirectory,
  nodeUnavailable,
  requireReachableNode,
} from '../../nodes/contract.ts'
import { requireRunningSite, runningSiteProblems, siteDirectory } from '../../sites/contract.ts'
import { logScopes } from '../contract.ts'
import { statusRanges } from '../filters.ts'
import { type FollowPace, followStream } from '../follow-stream.ts'
import {
  cursorId,
  cursorOf,
  defaultLines,
  type LogFilters,
  type LogKind,
  type LogsAnswer,
  type LogsRequest,
  logKinds,
  logsService,
} from '../node/protocol.ts'
import { logsProblems as problems } from '../problems.ts'
import { LogPage, LogQuery } from '../schemas.ts'

/** How long one read of a node may take. */
const callTimeoutMs = 30_000

/** The most streams following one site's logs at once (in this panel instance): each reads its node twice a second. */
export const maxFollowsPerSite = 10

/** Whether the client asked for the event stream rather than JSON. */
const wantsStream = (accept: string | null) => (accept ?? '').toLowerCase().includes('text/event-stream')

export function logRoutes(context: PluginContext, pace: FollowPace = {}) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  /** The live follows of each site. */
  const following = new Map<string, number>()

  /** Asks the site's node; a refusal or failure is 503 `logs_unavailable`, an agent away 503 `node_unavailable`. */
  async function ask(
    node: Node,
    siteId: string,
    request: LogsRequest,
    signal: AbortSignal,
  ): Promise<LogsAnswer> {
    try {
      return (await nodes.call(
        node,
        { siteId, service: logsService, request },
        AbortSignal.any([signal, AbortSignal.timeout(callTimeoutMs)]),
      )) as LogsAnswer
    } catch (error) {
      if (error instanceof NodeUnreachable) throw new Problem(nodeUnavailable)
      if (!(error instanceof NodeRefusal) || error.code !== 'site_not_on_node')
        context.log.warn(
          { siteId, op: request.op, err: String(error) },
          'reading a site’s logs failed on the node',
        )
      throw new Problem(problems.logs_unavailable)
    }
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/sites/:id/logs/:kind',
      operationId: 'readSiteLog',
      summary: 'Read or follow one of a site’s logs',
      description: [
        '`kind` is `access` (nginx’s access log: one entry per request), `error` (nginx’s error log) or `php` (PHP’s error log: warnings, fatal errors with their stack traces, what the site’s code writes with `error_log()`).',
        'As JSON: the last `lines` entries that pass the filters (default 100, at most 5,000), oldest first and newest last, read backwards from the log’s end and on through its rotated files while `lines` or `since` reach back (at most 32 MiB of log per request: `truncated` says when it stopped there).',
        'With `Accept: text/event-stream`: the same entries as `entry` events, then each new entry as it is written (read from the node every half second). Every batch’s last event carries an `id:`; a client that reconnects with `Last-Event-ID` (EventSource does) resumes right after it, without the last lines again. Comments keep idle connections open. An `end` event (`{ reason }`: `site_deleted`, `site_suspended`, `access_revoked` within 5 s of the caller losing access (token revoked or expired, user disabled, membership or `log:read` taken away), `logs_unavailable`, `time_limit` after an hour) closes the stream. At most 10 streams follow one site’s logs at once (429 `log_follow_limit`). Following needs the site `active`; reading it as JSON, `active` or `suspended`.',
      ].join('\n\n'),
      scope: logScopes.read,
      params: t.Object({
        id: t.String({ pattern: '^site_[0-9A-HJKMNP-TV-Z]{26}$', description: 'The site, `site_…`.' }),
        kind: t.String({ maxLength: 20, description: '`access`, `error` or `php`.' }),
      }),
      query: LogQuery,
      requestHeaders: {
        'Last-Event-ID': {
          description:
            'Following only: the `id:` of the last event received (`<inode>-<offset>`): the stream resumes after it.',
          schema: t.String({ maxLength: 40 }),
        },
      },
      responses: {
        200: {
          description:
            'The last entries (JSON `LogPage`), or, with `Accept: text/event-stream`, the followed log as Server-Sent Events (`entry` events carrying an `AccessLogEntry` or `MessageLogEntry`, then `end`).',
          schema: LogPage,
          alternatives: {
            'text/event-stream': {
              schema: t.String({
                description:
                  '`entry` events (data: an `AccessLogEntry` or a `MessageLogEntry`), the last of each batch with an `id:` to resume from, comments while idle, then an `end` event (data: `{ reason }`).',
              }),
            },
          },
        },
      },
      problems: [
        problems.unknown_log_kind,
        problems.invalid_since,
        problems.invalid_status_filter,
        problems.status_filter_not_applicable,
        problems.invalid_last_event_id,
        problems.logs_unavailable,
        problems.log_follow_limit,
        ...runningSiteProblems,
        nodeUnavailable,
      ],
      async handler({ db, params, query, view, request, caller }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        const kind = params.kind as LogKind
        if (!logKinds.includes(kind)) throw new Problem(problems.unknown_log_kind)
        if (query.status !== undefined && kind !== 'access')
          throw fieldProblem(problems.status_filter_not_applicable, 'query.status')
        const follow = wantsStream(request.headers.get('accept'))
        const resumeFrom = request.headers.get('last-event-id')
        const resume = follow && resumeFrom ? cursorOf(resumeFrom) : null
        if (follow && resumeFrom && !resume) throw new Problem(problems.invalid_last_event_id)
        if (follow || site.status !== 'suspended') requireRunningSite(site)
        const node = site.nodeId ? await nodes.find(site.nodeId) : null
        requireReachableNode(node)
        const filters: LogFilters = {
          ...(query.since ? { since: new Date(query.since).toISOString() } : {}),
          ...(query.status ? { status: statusRanges(query.status) ?? [] } : {}),
          ...(query.search ? { search: query.search } : {}),
        }
        const lines = query.lines ?? defaultLines
        if (!follow) {
          const page = await ask(node, site.id, { op: 'tail', kind, lines, filters }, request.signal)
          return { kind, entries: page.entries, truncated: page.truncated, cursor: cursorId(page.cursor) }
        }
        const live = following.get(site.id) ?? 0
        if (live >= maxFollowsPerSite) throw new Problem(problems.log_follow_limit)
        following.set(site.id, live + 1)
        let released = false
        const release = () => {
          if (released) return
          released = true
          const left = (following.get(site.id) ?? 1) - 1
          if (left > 0) following.set(site.id, left)
          else following.delete(site.id)
        }
        let tail: LogsAnswer | null
        try {
          tail = resume
            ? null
            : await ask(node, site.id, { op: 'tail', kind, lines, filters }, request.signal)
        } catch (error) {
          release()
          throw error
        }
        const stream = followStream(
          {
            tail,
            from: resume ?? (tail as LogsAnswer).cursor,
            // Only what is new passes `since` anyway: the follow filters by status and text.
            read: (cursor, signal) =>
              ask(
                node,
                site.id,
                { op: 'follow', kind, cursor, filters: { ...filters, since: undefined } },
                signal,
              ),
            async standing() {
              // The caller is made afresh, as a request's is: a token revoked or expired, a user disabled, or the
              // membership or scope taken away ends the stream within `checkMs`.
              const fresh = await context.callerOf({
                userId: caller.user.id,
                tokenId: caller.token?.id ?? null,
              })
              const now = fresh ? await sites.find(context.db, fresh.viewFor(logScopes.read), site.id) : null
              if (!now)
                return (await sites.find(context.db, view, site.id)) ? 'access_revoked' : 'site_deleted'
              if (now.status === 'deleting') return 'site_deleted'
              if (now.status === 'suspended') return 'site_suspended'
              return null
            },
            ended: release,
          },
          request.signal,
          pace,
        )
        return Reply.stream(stream, 'text/event-stream')
      },
    }),
  ]
}
