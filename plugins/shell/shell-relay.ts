// The panel's end of a shell session: the client's WebSocket relayed to the shell on the site's node through node
// service calls (writes as they come, reads waiting on the node for output), the session's idle timeout, its
// recording (asciicast v2, sealed in the store, output only: what is typed, passwords at prompts included, is not
// kept) and its end (the row, an audit entry with its duration, the exit frame).

import {
  type AuditActor,
  customerInView,
  type PanelSocket,
  type PluginContext,
  type SocketHandler,
  writeAudit,
} from '../../core/index.ts'
import { type Node, NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import { siteScopes } from '../sites/contract.ts'
import { type ShellRead, shellServiceName } from './contract.ts'
import type { ShellSessionsTable, ShellTables } from './migrations.ts'
import { siteGoneCheck, siteUnavailable } from './site-availability.ts'

/** How the relays run. */
export interface RelaySettings {
  /** A session without input for this long ends (`idle`). */
  readonly idleTimeoutMs: number
  /** The most a session's recording keeps; later output is relayed but not recorded. */
  readonly recordingCapBytes: number
  /** How often a live session checks that whoever asked for it may still open shells in the site. */
  readonly accessCheckMs: number
}

/**
 * Whether whoever asked for `session` may still have a shell in its site: their token (if they used one) neither
 * revoked nor expired, their user enabled, and `site:shell` still theirs on the site's customer. Made afresh as a
 * request's caller is, at connect time and every few seconds while the session lives.
 */
export async function mayStillShell(context: PluginContext, session: ShellSessionsTable): Promise<boolean> {
  if (!session.requested_by_user_id) return false
  const caller = await context.callerOf({
    userId: session.requested_by_user_id,
    tokenId: session.requested_by_token_id,
  })
  if (!caller) return false
  return customerInView(context.db, caller.viewFor(siteScopes.shell), session.customer_id)
}

const heartbeatMs = 30_000
/**
 * Input accepted from the client but not yet written to the shell: past it the client is sending faster than the
 * shell takes it (a paste bomb), and the session ends `input_overflow` (close code 1009) rather than the panel
 * holding it all.
 */
export const maxPendingInputBytes = 4 * 1024 * 1024
const flushEveryMs = 2000

/** The live relays of this panel instance. */
export function createRelays(context: PluginContext, settings: RelaySettings) {
  const nodes = context.use(nodeDirectory)
  const live = new Set<(reason: string) => Promise<void>>()
  const table = () => context.db.withTables<ShellTables>()
  const siteGone = siteGoneCheck(context)
  const unavailableMessage = 'The site was suspended or removed: its shell ended with it.'

  function relay(
    session: ShellSessionsTable,
    actor: AuditActor,
    size: { cols: number; rows: number },
  ): SocketHandler {
    const controller = new AbortController()
    const began = Date.now()
    let socket: PanelSocket | null = null
    let node: Node | null = null
    let shellId: string | null = null
    let ended: Promise<void> | null = null
    let idle: ReturnType<typeof setTimeout> | undefined
    let writes: Promise<unknown> = Promise.resolve()
    let pendingInput = 0
    const decoder = new TextDecoder()
    // The recording: asciicast v2 lines, flushed to the store in sealed pieces.
    let pending = `${JSON.stringify({
      version: 2,
      width: size.cols,
      height: size.rows,
      timestamp: Math.floor(began / 1000),
      env: { TERM: 'xterm-256color', SHELL: '/bin/bash' },
    })}\n`
    let recorded = 0
    let seq = 0
    let recording = true
    let flushing: Promise<void> = Promise.resolve()

    const call = async (request: Record<string, unknown>, signal: AbortSignal = controller.signal) => {
      if (!node) throw new Error('The session has no node')
      return nodes.call(node, { siteId: session.site_id, service: shellServiceName, request }, signal)
    }
    const send = (frame: Record<string, unknown>) => {
      try {
        socket?.send(JSON.stringify(frame))
      } catch {
        // The client is gone: its close ends the session.
      }
    }
    const record = (kind: 'o' | 'r', data: string) => {
      if (!recording) return
      const line = `${JSON.stringify([Number(((Date.now() - began) / 1000).toFixed(3)), kind, data])}\n`
      if (recorded + pending.length + line.length > settings.recordingCapBytes) {
        recording = false
        pending += `${JSON.stringify([(Date.now() - began) / 1000, 'o', '\r\n[recording stopped: size limit]\r\n'])}\n`
      } else pending += line
      if (pending.length > 32_768) void flush()
    }
    const flush = () => {
      flushing = flushing
        .then(async () => {
          if (!pending) return
          const text = pending
          pending = ''
          const bytes = Buffer.byteLength(text)
          await context.transaction(async (trx) => {
            const db = trx.withTables<ShellTables>()
            // A session removed with its site (`site.deleted`) records nothing more: no piece outlives its row.
            const updated = await db
              .updateTable('shell_sessions')
              .set({ recording_bytes: recorded + bytes })
              .where('id', '=', session.id)
              .executeTakeFirst()
            if (Number(updated.numUpdatedRows) === 0) return
            await db
              .insertInto('shell_recordings')
              .values({ session_id: session.id, seq: seq++, sealed: context.secrets.seal(text) })
              .execute()
            recorded += bytes
          })
        })
        .catch((error) => context.log.warn({ sessionId: session.id, err: error }, 'recording a shell failed'))
      return flushing
    }
    const flusher = setInterval(() => void flush(), flushEveryMs)
    const heartbeat = setInterval(
      () =>
        void table()
          .updateTable('shell_sessions')
          .set({ seen_at: new Date().toISOString() })
          .where('id', '=', session.id)
          .execute()
          .catch(() => {}),
      heartbeatMs,
    )
    // Access is asked again while the session lives: a revoked token, a disabled user or a member taken off the
    // team ends it within `accessCheckMs`.
    let checking = false
    const accessCheck = setInterval(() => {
      if (checking || ended) return
      checking = true
      void mayStillShell(context, session)
        .then((allowed) => {
          if (!allowed)
            void finish(
              'access_revoked',
              null,
              'Whoever asked for this session may no longer open shells here.',
            )
        })
        .catch((error) =>
          context.log.warn({ sessionId: session.id, err: error }, 'checking shell access failed'),
        )
        .finally(() => {
          checking = false
        })
    }, settings.accessCheckMs)
    const touch = () => {
      clearTimeout(idle)
      idle = setTimeout(() => void finish('idle', null), settings.idleTimeoutMs)
    }

    function finish(reason: string, exitCode: number | null = null, message?: string): Promise<void> {
      ended ??= (async () => {
        live.delete(finish)
        controller.abort()
        clearTimeout(idle)
        clearInterval(flusher)
        clearInterval(heartbeat)
        clearInterval(accessCheck)
        if (shellId) await call({ op: 'shell.close', shellId }, AbortSignal.timeout(10_000)).catch(() => {})
        await flush()
        const endedAt = new Date()
        const durationSeconds = Math.round((endedAt.getTime() - began) / 100) / 10
        try {
          await context.transaction(async (trx) => {
            await trx
              .withTables<ShellTables>()
              .updateTable('shell_sessions')
              .set({
                status: 'ended',
                ended_at: endedAt.toISOString(),
                end_reason: reason,
                exit_code: exitCode,
              })
              .where('id', '=', session.id)
              .execute()
            await writeAudit(trx, actor, {
              action: 'shell_session.end',
              subject: { type: 'shell_session', id: session.id },
              customerId: session.customer_id,
              details: {
                siteId: session.site_id,
                durationSeconds,
                endReason: reason,
                exitCode,
                recordingBytes: recorded,
              },
            })
          })
        } catch (error) {
          context.log.error(
            { sessionId: session.id, err: error },
            'recording the end of a shell session failed',
          )
        }
        send({ type: 'exit', code: exitCode, reason, ...(message ? { message } : {}) })
        try {
          socket?.close(reason === 'failed' ? 1011 : reason === 'input_overflow' ? 1009 : 1000, reason)
        } catch {
          // Closed already.
        }
      })()
      return ended
    }

    /** Why a failed call ends the session. */
    function endFor(error: unknown): Promise<void> {
      if (ended) return ended
      if (error instanceof NodeRefusal) {
        if (error.code === 'site_suspended' || error.code === 'site_not_on_node')
          return finish(siteUnavailable, null, error.message)
        if (error.code === 'shell_not_found')
          return siteGone(session.site_id).then(
            (gone) => (gone ? finish(siteUnavailable, null, unavailableMessage) : finish('exited', null)),
            () => finish('exited', null),
          )
        return finish('failed', null, error.message)
      }
      context.log.warn({ sessionId: session.id, err: error }, 'a shell session failed')
      return finish('failed', null, 'The site’s node could not be reached.')
    }

    async function pump(): Promise<void> {
      let after = 0
      while (!ended) {
        const read = (await call({ op: 'shell.read', shellId, after, waitMs: 1000 })) as ShellRead
        if (ended) return
        if (read.output) {
          const text = decoder.decode(Buffer.from(read.output, 'base64'), { stream: true })
          if (text) {
            send({ type: 'output', data: text })
            record('o', text)
          }
        }
        after = read.next
        if (read.exit) {
          // A shell killed by a signal while its site is suspended or deleted was ended by that (the node ends
          // everything of the site's user), not by its user: it says `site_unavailable`. A shell that caught the
          // signal exits with 128 + its number (bash, hung up as its terminal goes, exits 129): the same.
          const bySignal = read.exit.code === null || read.exit.code > 128
          if (bySignal && (await siteGone(session.site_id).catch(() => false))) {
            await finish(siteUnavailable, null, unavailableMessage)
            return
          }
          await finish('exited', read.exit.code)
          return
        }
      }
    }

    function message(data: string | Uint8Array): void {
      if (ended) return
      let input: Uint8Array | null = null
      let resize: { cols: number; rows: number } | null = null
      if (typeof data !== 'string') input = data
      else {
        let frame: Record<string, unknown>
        try {
          frame = JSON.parse(data) as Record<string, unknown>
        } catch {
          send({
            type: 'error',
            message: 'Frames are JSON: {"type":"stdin","data":"…"} or {"type":"resize","cols":80,"rows":24}.',
          })
          return
        }
        if (frame.type === 'stdin' && typeof frame.data === 'string')
          input = new TextEncoder().encode(frame.data)
        else if (
          frame.type === 'resize' &&
          Number.isInteger(frame.cols) &&
          Number.isInteger(frame.rows) &&
          (frame.cols as number) > 0 &&
          (frame.rows as number) > 0 &&
          (frame.cols as number) <= 1000 &&
          (frame.rows as number) <= 1000
        )
          resize = { cols: frame.cols as number, rows: frame.rows as number }
        else {
          send({ type: 'error', message: 'Unknown frame: send stdin or resize.' })
          return
        }
      }
      if (input) touch()
      if (resize) record('r', `${resize.cols}x${resize.rows}`)
      const request = {
        op: 'shell.write',
        ...(input ? { input: Buffer.from(input).toString('base64') } : {}),
        ...(resize ? { resize } : {}),
      }
      const weight = input?.length ?? 0
      if (pendingInput + weight > maxPendingInputBytes) {
        void finish('input_overflow', null, 'Input came faster than the shell took it.')
        return
      }
      pendingInput += weight
      // In order, once the shell is open.
      writes = writes
        .then(() => (ended || !shellId ? undefined : call({ ...request, shellId }).catch(endFor)))
        .finally(() => {
          pendingInput -= weight
        })
    }

    return {
      open(opened) {
        socket = opened
        live.add(finish)
        touch()
        writes = (async () => {
          try {
            const found = await nodes.find(session.node_id)
            if (!found) throw new NodeRefusal('site_not_on_node', 'The site’s node is gone.')
            node = found
            const answer = (await call({ op: 'shell.open', cols: size.cols, rows: size.rows })) as {
              shellId: string
            }
            shellId = answer.shellId
            if (ended) {
              await call({ op: 'shell.close', shellId }, AbortSignal.timeout(10_000)).catch(() => {})
              return
            }
            void pump().catch(endFor)
          } catch (error) {
            await endFor(error)
          }
        })()
      },
      message,
      close() {
        void finish('closed', null)
      },
    }
  }

  return {
    relay,
    /** Ends every live session (the panel is stopping). */
    async stopAll(): Promise<void> {
      await Promise.all([...live].map((finish) => finish('shutdown')))
    },
  }
}
