// A log followed as Server-Sent Events: the last entries first (unless the client resumes from an event id), then
// every new entry as the node's log gets it, read from the node every half second with the cursor of the last
// read; comments keep idle connections open; the stream ends with an `end` event when the site is deleted or
// suspended, when whoever opened it may no longer read the site's logs (token revoked or expired, user disabled,
// membership or scope taken away), when the node stays unreachable, after an hour (EventSource reconnects and
// resumes), or when the client goes.

import { serverSentEvent, serverSentEventStream } from '../../core/index.ts'
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

/** The entries as `entry` events, the last carrying the id of `cursor` (or a bare id when there is none). */
function batch(entries: readonly LogEntry[], cursor: LogCursor): string {
  const id = cursorId(cursor)
  if (entries.length === 0) return `id: ${id}\n\n`
  return entries
    .map((entry, index) => serverSentEvent('entry', entry, index === entries.length - 1 ? id : undefined))
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
  const failingMs = pace.failingMs ?? 60_000
  const maxMs = pace.maxMs ?? 3_600_000
  const frame = {
    retryMs: 2000,
    keepAliveMs: pace.keepAliveMs ?? 15_000,
    keepAliveComment: 'still following',
  }
  return serverSentEventStream(signal, frame, async (stream) => {
    try {
      const deadline = Date.now() + maxMs
      let cursor = source.from
      let lastCheck = Date.now()
      let failingSince: number | null = null
      let ended: FollowEnd | null = null
      if (source.tail) stream.send(batch(source.tail.entries, source.tail.cursor))
      while (!stream.stopped.aborted) {
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
          const answer = await source.read(cursor, stream.stopped)
          failingSince = null
          const moved = answer.cursor.inode !== cursor.inode || answer.cursor.offset !== cursor.offset
          cursor = answer.cursor
          if (answer.entries.length > 0 || moved) stream.send(batch(answer.entries, cursor))
          // More was written than one read takes: read on at once.
          if (answer.truncated) continue
        } catch {
          if (stream.stopped.aborted) break
          failingSince ??= Date.now()
          if (Date.now() - failingSince >= failingMs) {
            ended = 'logs_unavailable'
            break
          }
        }
        stream.keepAlive()
        await stream.pause(pollMs)
      }
      if (ended && !stream.stopped.aborted) stream.send(serverSentEvent('end', { reason: ended }))
    } finally {
      source.ended?.()
    }
  })
}
