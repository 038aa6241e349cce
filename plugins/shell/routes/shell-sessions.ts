// Shell sessions of a site: asked for (a single-use token valid 60 s), connected (the WebSocket, its Origin checked),
// listed, read, and their recordings replayed.

import {
  type AuditActor,
  defineRoute,
  newId,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteCredential,
  resourceRoutes,
  t,
  tokenFormat,
  writeAudit,
} from '../../../core/index.ts'
import { nodeDirectory } from '../../nodes/contract.ts'
import { requireRunningSite, runningSiteProblems, siteDirectory, siteScopes } from '../../sites/contract.ts'
import { NewShellSession, ShellSession } from '../contract.ts'
import type { ShellSessionsTable, ShellTables } from '../migrations.ts'
import { shellProblems } from '../problems.ts'
import { type createRelays, mayStillShell } from '../shell-relay.ts'

/** Settings of the session routes. */
export interface SessionSettings {
  /** Sessions pending or open on one site at once. */
  readonly sessionsPerSite: number
  /** Origins allowed to open the WebSocket besides the panel's own (`https://portal.example.com`). */
  readonly allowedOrigins: readonly string[]
}

/** How long a session's token connects. */
const tokenLifetimeMs = 60_000
/** An open session whose relay has not renewed it for this long is counted as gone (its instance crashed). */
const staleAfterMs = 90_000

const shellTokens = tokenFormat({ prefix: 'plinth_shell_', randomLength: 32 })

/**
 * The session's token, given as the `token` query parameter (a browser's WebSocket cannot send headers): checked for
 * its shape here, against the session in the handler, which spends it.
 */
const shellSessionCredential: RouteCredential<string> = {
  name: 'shellSessionToken',
  scheme: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description:
      'A shell session’s single-use token (`plinth_shell_…`), valid 60 s: `POST /sites/{id}/shell-sessions`.',
  },
  async authenticate(request) {
    const token = new URL(request.url).searchParams.get('token') ?? ''
    if (!shellTokens.isWellFormed(token)) throw new Problem(shellProblems.shell_token_invalid)
    return token
  },
}

/** The session as the API shows it. */
export function toSession(row: ShellSessionsTable, now = new Date()): ShellSession {
  const expired = row.status === 'pending' && row.expires_at <= now.toISOString()
  const durationSeconds =
    row.started_at && row.ended_at
      ? Math.round((Date.parse(row.ended_at) - Date.parse(row.started_at)) / 100) / 10
      : null
  return {
    id: row.id,
    siteId: row.site_id,
    customerId: row.customer_id,
    status: expired ? 'expired' : (row.status as ShellSession['status']),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    durationSeconds,
    endReason: row.end_reason,
    exitCode: row.exit_code,
    recordingBytes: row.recording_bytes,
  }
}

/** The WebSocket URL of `sessionId`, next to the address the session was asked for at. */
function socketUrl(request: Request, sessionId: string): string {
  const url = new URL(request.url)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  url.search = ''
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${sessionId}/connect`
  return url.toString()
}

/** The session routes. */
export function shellSessionRoutes(
  context: PluginContext,
  settings: SessionSettings,
  relays: ReturnType<typeof createRelays>,
) {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const sessions = (db: PluginContext['db']) => db.withTables<ShellTables>()
  const sessionIn = async (db: PluginContext['db'], siteId: string, sessionId: string) =>
    orNotFound(
      await sessions(db)
        .selectFrom('shell_sessions')
        .selectAll()
        .where('id', '=', sessionId)
        .where('site_id', '=', siteId)
        .executeTakeFirst(),
    )

  return [
    ...resourceRoutes({
      item: ShellSession,
      name: 'shell_session',
      path: '/sites/:id/shell-sessions',
      params: { id: 'site' },
      key: { sessionId: 'shs' },
      scopes: { read: siteScopes.shell, manage: siteScopes.shell },
      parent: (db, view, params) => sites.find(db, view, params.id),
      list: {
        summary: 'List a site’s shell sessions',
        description: 'Newest first, with their state, duration and recording size.',
        key: 'shell_sessions.id',
        order: 'desc',
        toItem: (row: ShellSessionsTable) => toSession(row),
        handler: ({ db, parent }) =>
          sessions(db).selectFrom('shell_sessions').selectAll().where('site_id', '=', parent.id),
      },
      read: {
        summary: 'Read a shell session',
        responses: { 200: ShellSession },
        handler: async ({ db, parent, params }) =>
          toSession(await sessionIn(db, parent.id, params.sessionId)),
      },
      create: {
        summary: 'Open an interactive shell in a site',
        description:
          'Answers a single-use WebSocket `url` and `token`, valid 60 s. The WebSocket (see `connectShellSession`) runs bash on a real terminal as the site’s Unix user, confined to the site as `POST /sites/{id}/exec` is. At most `SHELL_SESSIONS_PER_SITE` (default 3) sessions pending or open per site. Audited as `site.shell`; the connection as `shell_session.start` and its end, with its duration, as `shell_session.end`. Not idempotent: an `Idempotency-Key` is ignored and every request is a new session with its own token (a token is never handed out twice).',
        // Never replayed: a replay would hand out the same single-use token again, and the idempotency store would
        // keep it (sealed) for a day. Each request is a new session with a new token.
        idempotent: false,
        showsSecret: true,
        responses: { 201: NewShellSession },
        problems: [
          shellProblems.shell_session_limit,
          shellProblems.shell_unavailable,
          ...runningSiteProblems,
        ],
        record: {
          action: 'site.shell',
          event: null,
          subject: (session) => ({ type: 'site', id: String(session.siteId) }),
          details: (session) => ({ sessionId: session.id, expiresAt: session.expiresAt }),
        },
        // The relay reaches the shell through node calls: in process for the local node, through the agent's
        // command queue for a remote one (hosts/node-agent-access.test.ts).
        async prepare({ db, params, view }) {
          const placed = orNotFound(await sites.find(db, view, params.id))
          const node = placed.nodeId ? await nodes.find(placed.nodeId) : null
          if (node?.agent.capabilities?.unixUsers === false)
            throw new Problem(shellProblems.shell_unavailable)
          return shellTokens.generate()
        },
        async handler({ trx, parent: site, caller, request, prepared: token }) {
          requireRunningSite(site)
          const now = new Date()
          const live = await sessions(trx)
            .selectFrom('shell_sessions')
            .select('id')
            .where('site_id', '=', site.id)
            .where((eb) =>
              eb.or([
                eb.and([eb('status', '=', 'pending'), eb('expires_at', '>', now.toISOString())]),
                eb.and([
                  eb('status', '=', 'open'),
                  eb('seen_at', '>', new Date(now.getTime() - staleAfterMs).toISOString()),
                ]),
              ]),
            )
            .execute()
          if (live.length >= settings.sessionsPerSite)
            throw new Problem(shellProblems.shell_session_limit, {
              extensions: { limit: settings.sessionsPerSite },
            })
          const session: ShellSessionsTable = {
            id: newId('shs'),
            site_id: site.id,
            customer_id: site.customerId,
            node_id: site.nodeId ?? '',
            status: 'pending',
            token_hash: shellTokens.hash(token),
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + tokenLifetimeMs).toISOString(),
            started_at: null,
            ended_at: null,
            seen_at: null,
            end_reason: null,
            exit_code: null,
            recording_bytes: 0,
            requested_by_user_id: caller.user.id,
            requested_by_token_id: caller.token?.id ?? null,
          }
          await sessions(trx).insertInto('shell_sessions').values(session).execute()
          return { ...toSession(session), url: socketUrl(request, session.id), token }
        },
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/shell-sessions/:sessionId/connect',
      operationId: 'connectShellSession',
      summary: 'Connect to a shell session (WebSocket)',
      description:
        'Upgrades to a WebSocket carrying the shell, with the session’s `token` as the `token` query parameter: once, within 60 s of the session’s creation. A browser’s `Origin` must be the panel’s or one of `SHELL_ALLOWED_ORIGINS`. Frames are JSON text. From the client: `{"type":"stdin","data":"ls\\r"}` (a binary frame is stdin as bytes) and `{"type":"resize","cols":120,"rows":40}`. From the panel: `{"type":"output","data":"…"}` (the terminal’s output as UTF-8 text), `{"type":"error","message":"…"}` for a frame it could not read, and last `{"type":"exit","code":0,"reason":"exited"}` (`reason`: `exited`, `idle`, `closed`, `site_unavailable`, `access_revoked`, `shutdown`, `failed`) before it closes the connection. A session without input for `SHELL_IDLE_SECONDS` (default 900) ends `idle`; one whose requester lost access (their token revoked or expired, their user disabled, `site:shell` on the customer taken from them) ends `access_revoked` within 5 s, and its token no longer connects (`shell_access_revoked`). `cols` and `rows` in the query set the terminal’s first size (default 80×24).',
      public: true,
      credential: shellSessionCredential,
      params: { id: 'site', sessionId: 'shs' },
      query: t.Object({
        token: t.String({ maxLength: 200, description: 'The session’s single-use token.' }),
        cols: t.Optional(
          t.Integer({ minimum: 1, maximum: 1000, description: 'The terminal’s first width (80).' }),
        ),
        rows: t.Optional(
          t.Integer({ minimum: 1, maximum: 1000, description: 'The terminal’s first height (24).' }),
        ),
      }),
      responses: {
        101: { description: 'Switching Protocols: the connection is the shell’s WebSocket.' },
        426: { description: 'Sent by a host that cannot upgrade connections (the token is spent).' },
      },
      problems: [
        shellProblems.websocket_required,
        shellProblems.origin_not_allowed,
        shellProblems.shell_token_invalid,
        shellProblems.shell_access_revoked,
      ],
      async handler({ params, query, request, requestId, address }) {
        if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket')
          throw new Problem(shellProblems.websocket_required)
        const origin = request.headers.get('origin')
        if (
          origin !== null &&
          origin !== new URL(request.url).origin &&
          !settings.allowedOrigins.includes(origin)
        )
          throw new Problem(shellProblems.origin_not_allowed)
        // Asked before the transaction (it reads the store afresh); the token is checked inside it.
        const asked = await sessionIn(context.db, params.id, params.sessionId).catch(() => null)
        const allowed = asked ? await mayStillShell(context, asked) : true
        const now = new Date().toISOString()
        const opened = await context.transaction(async (trx) => {
          const row = await sessions(trx)
            .selectFrom('shell_sessions')
            .selectAll()
            .where('id', '=', params.sessionId)
            .where('site_id', '=', params.id)
            .executeTakeFirst()
          const fresh = row?.status === 'pending' && row.expires_at > now
          // One comparison whatever was found: the time taken tells nothing.
          if (!shellTokens.matches(query.token, fresh ? (row?.token_hash ?? null) : null) || !row)
            throw new Problem(shellProblems.shell_token_invalid)
          const actor: AuditActor = {
            userId: row.requested_by_user_id,
            tokenId: row.requested_by_token_id,
            requestId,
            sourceAddress: address,
          }
          // A token issued before its requester lost access (token revoked, user disabled, taken off the team)
          // no longer connects: the session ends, spent.
          if (!allowed) {
            await sessions(trx)
              .updateTable('shell_sessions')
              .set({ status: 'ended', token_hash: null, ended_at: now, end_reason: 'access_revoked' })
              .where('id', '=', row.id)
              .execute()
            await writeAudit(trx, actor, {
              action: 'shell_session.end',
              subject: { type: 'shell_session', id: row.id },
              customerId: row.customer_id,
              details: {
                siteId: row.site_id,
                durationSeconds: 0,
                endReason: 'access_revoked',
                exitCode: null,
              },
            })
            return null
          }
          await sessions(trx)
            .updateTable('shell_sessions')
            .set({ status: 'open', token_hash: null, started_at: now, seen_at: now })
            .where('id', '=', row.id)
            .execute()
          await writeAuditOf(trx, actor, row)
          return { row, actor }
        })
        if (!opened) throw new Problem(shellProblems.shell_access_revoked)
        return Reply.upgrade(
          relays.relay(opened.row, opened.actor, { cols: query.cols ?? 80, rows: query.rows ?? 24 }),
        )
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/shell-sessions/:sessionId/recording',
      operationId: 'getShellSessionRecording',
      summary: 'Replay a shell session',
      description:
        'The session’s recording as asciicast v2 (`application/x-asciicast`: a header line, then `[seconds, "o", output]` and `[seconds, "r", "COLSxROWS"]` lines), playable with `asciinema play` or asciinema-player. Output only: what was typed is not recorded (passwords typed at prompts stay out of it), though the terminal’s echo of it is. Kept sealed in the store, up to 5 MiB per session. So far, while the session is open.',
      scope: siteScopes.shell,
      params: { id: 'site', sessionId: 'shs' },
      responses: { 200: { description: 'The recording.', contentType: 'application/x-asciicast' } },
      async handler({ db, params, view }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        const session = await sessionIn(db, site.id, params.sessionId)
        const pieces = await sessions(db)
          .selectFrom('shell_recordings')
          .select('sealed')
          .where('session_id', '=', session.id)
          .orderBy('seq')
          .execute()
        // Text under the declared media type, tagged by the kernel; never kept by a cache (it may show secrets).
        const text = pieces.map((piece) => context.secrets.open(piece.sealed)).join('')
        return new Reply(200, text, { 'cache-control': 'no-store' })
      },
    }),
  ]
}

/** The connection's audit entry, by whoever asked for the session. */
async function writeAuditOf(
  trx: Parameters<typeof writeAudit>[0],
  actor: AuditActor,
  row: ShellSessionsTable,
) {
  await writeAudit(trx, actor, {
    action: 'shell_session.start',
    subject: { type: 'shell_session', id: row.id },
    customerId: row.customer_id,
    details: { siteId: row.site_id },
  })
}
