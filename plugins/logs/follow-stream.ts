// A log followed as Server-Sent Events: the last entries first (unless the client resumes from an event id), then
// every new entry as the node's log gets it, read from the node every half second with the cursor of the last
// read; comments keep idle connections open; the stream ends with an `end` event when the site is deleted or
// suspended, when whoever opened it may no longer read the site's logs (token revoked or expired, user disabled,
// membership or scope taken away), when the node stays unreachable, after an hour (EventSource reconnects and
// resumes), or when the client goes.

import { cursorId, type LogCursor, type LogEntry, type LogsAnswer } from './node/protocol.ts'

/** Why a follow ended, as its `end` event says. */
export type FollowEnd =
  | 'site_deleted'
  | 'site_suspended'
  | 'access_revoked'
  | 'logs_unavailable'
  | 'time_limit'

/** What a follow needs. */
export interface FollowSource {
  /** The last entries to send first; null when the client resumes (`Last-Event-ID`). */
  readonly tail: LogsAnswer | null
  /** Where to follow from (the tail's cursor, or the client's). */
  readonly from: LogCursor
  /** What was written since `cursor`. Throws when the node cannot answer. */
  read(cursor: LogCursor, signal: AbortSignal): Promise<LogsAnswer>
  /** Whether the site is still there to follow and its caller may still read it: null while so, else why not. */
  standing(): Promise<FollowEnd | null>
  /** Called once when the stream ends, however it ends. */
  ended?(): void
}

/** How a follow paces itself. */
export interface FollowPace {
  /** Between two reads of the node. Default 500 ms. */
  readonly pollMs?: number
  /** Between two looks at the site's state and the caller's access. Default 5 s. */
  readonly checkMs?: number
  /** After this long without an event, a comment. Default 15 s. */
  readonly keepAliveMs?: number
  /** The node failing this long ends the stream. Default 60 s. */
  readonly failingMs?: number
  /** The longest a stream stays open. Default one hour. */
  readonly maxMs?: number
}

const encoder = new TextEncoder()

/** One event: its name, JSON data on one line, and the id to resume from when given. */
const event = (name: string, data: unknown, id?: string) =>
  `${id ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`

/** The entries as `entry` events, the last carrying the id of `cursor` (or a bare id when there is none). */
function batch(entries: readonly LogEntry[], cursor: LogCursor): string {
  const id = cursorId(cursor)
  if (entries.length === 0) return `id: ${id}\n\n`
  return entries
    .map((entry, index) => event('entry', entry, index === entries.length - 1 ? id : undefined))
    .join('')
}

/** The stream of a followed log; ends when `signal` aborts (the client left). */
export function followStream(
  source: FollowSource,
  signal: AbortSignal,
  pace: FollowPace = {},
): ReadableStream<Uint8Array> {
  const pollMs = pace.pollMs ?? 500
  const checkMs = pace.checkMs ?? 5000
  const keepAliveMs = pace.keepAliveMs ?? 15_000
  const failingMs = pace.failingMs ?? 60_000
  const maxMs = pace.maxMs ?? 3_600_000
  const stopped = new AbortController()
  const stop = () => stopped.abort()
  signal.addEventListener('abort', stop, { once: true })
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      stopped.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          resolve()
        },
        { once: true },
      )
    })
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text))
      const deadline = Date.now() + maxMs
      let cursor = source.from
      let lastSent = Date.now()
      let lastCheck = Date.now()
      let failingSince: number | null = null
      let ended: FollowEnd | null = null
      try {
        send(`retry: 2000\n\n`)
        if (source.tail) send(batch(source.tail.entries, source.tail.cursor))
        while (!stopped.signal.aborted) {
          if (Date.now() >= deadline) {
            ended = 'time_limit'
            break
          }
          if (Date.now() - lastCheck >= checkMs) {
            lastCheck = Date.now()
            ended = await source.standing()
            if (ended) break
          }
          try {
            const answer = await source.read(cursor, stopped.signal)
            failingSince = null
            const moved = answer.cursor.inode !== cursor.inode || answer.cursor.offset !== cursor.offset
            cursor = answer.cursor
            if (answer.entries.length > 0 || moved) {
              send(batch(answer.entries, cursor))
              lastSent = Date.now()
            }
            // More was written than one read takes: read on at once.
            if (answer.truncated) continue
          } catch {
            if (stopped.signal.aborted) break
            failingSince ??= Date.now()
            if (Date.now() - failingSince >= failingMs) {
              ended = 'logs_unavailable'
              break
            }
          }
          if (Date.now() - lastSent >= keepAliveMs) {
            send(': still following\n\n')
            lastSent = Date.now()
          }
          await pause(pollMs)
        }
        if (ended && !stopped.signal.aborted) send(event('end', { reason: ended }))
      } catch (error) {
        // The client went away while an event was being queued.
        if (!stopped.signal.aborted) controller.error(error)
        return
      } finally {
        signal.removeEventListener('abort', stop)
        source.ended?.()
      }
      controller.close()
    },
    cancel: stop,
  })
}
