// The panel's end of a shell session: the client's WebSocket relayed to the shell on the site's node through node
// service calls (writes as they come, reads waiting on the node for output), the session's idle timeout, its
// recording (asciicast v2, sealed in the store, output only: what is typed, passwords at prompts included, is not
// kept) and its end (the row, an audit entry with its duration, the exit frame).

import {
  type AuditActor,
  type PanelSocket,
  type PluginContext,
  type SocketHandler,
  writeAudit,
} from '../../core/index.ts'
import { type Node, NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import { type ShellRead, shellServiceName } from './contract.ts'
import type { ShellSessionsTable, ShellTables } from './migrations.ts'

/** How the relays run. */
export interface RelaySettings {
  /** A session without input for this long ends (`idle`). */
  readonly idleTimeoutMs: number
  /** The most a session's recording keeps; later output is relayed but not recorded. */
  readonly recordingCapBytes: number
}

const heartbeatMs = 30_000
const flushEveryMs = 2000

/** The live relays of this panel instance. */
export function createRelays(context: PluginContext, settings: RelaySettings) {
  const nodes = context.use(nodeDirectory)
  const live = new Set<(reason: string) => Promise<void>>()
  const table = () => context.db.withTables<ShellTables>()

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
      return nodes
        .driverOf(node)
        .call(node, { siteId: session.site_id, service: shellServiceName, request }, signal)
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
            await db
              .insertInto('shell_recordings')
              .values({ session_id: session.id, seq: seq++, sealed: context.secrets.seal(text) })
              .execute()
            recorded += bytes
            await db
              .updateTable('shell_sessions')
              .set({ recording_bytes: recorded })
              .where('id', '=', session.id)
              .execute()
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
          socket?.close(reason === 'failed' ? 1011 : 1000, reason)
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
          return finish('site_unavailable', null, error.message)
        if (error.code === 'shell_not_found') return finish('exited', null)
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
      // In order, once the shell is open.
      writes = writes.then(() =>
        ended || !shellId ? undefined : call({ ...request, shellId }).catch(endFor),
      )
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
