// What the panel and the `logs` node service say to each other: which log, how many entries, the filters, and
// where a follower stands in the log (its cursor). Both sides read this one definition.

/** The node service's name. */
export const logsService = 'logs'

/** The logs a site has: nginx's access and error logs, and PHP's error log. */
export const logKinds = ['access', 'error', 'php'] as const
export type LogKind = (typeof logKinds)[number]

/** The most entries one read answers. */
export const maxLines = 5000
/** The entries a read answers when `lines` is not given. */
export const defaultLines = 100

/** What narrows the entries: each narrows, none widens. */
export interface LogFilters {
  /** Only entries at or after this time (ISO 8601). */
  readonly since?: string
  /** Access logs: only these statuses, as inclusive ranges (`5xx` is `[500, 599]`). */
  readonly status?: readonly (readonly [number, number])[]
  /** Only entries whose line holds this text (case-insensitive). */
  readonly search?: string
}

/** Where a reader stands in a log: the file (its inode) and the byte after the last whole line read. */
export interface LogCursor {
  readonly inode: number
  readonly offset: number
}

/** An access log entry (nginx's `plinth` format). */
export interface AccessEntry {
  /** ISO 8601 UTC. */
  readonly time: string
  readonly remoteAddress: string
  readonly method: string
  readonly path: string
  readonly protocol: string
  readonly status: number
  /** The body's bytes (`$body_bytes_sent`). */
  readonly bytes: number
  /** The whole answer's bytes, headers included (`$bytes_sent`). */
  readonly bytesSent: number
  readonly referrer: string | null
  readonly userAgent: string | null
}

/** An error log entry (nginx's error log, PHP's error log). */
export interface MessageEntry {
  /** ISO 8601 UTC. */
  readonly time: string
  /** nginx's (`error`, `warn`, `crit`, …) or PHP's (`fatal`, `warning`, `notice`, `deprecated`, `parse`, …). */
  readonly level: string
  readonly message: string
}

export type LogEntry = AccessEntry | MessageEntry

/** The last entries of a log: `{ op: 'tail' }`. */
export interface TailRequest {
  readonly op: 'tail'
  readonly kind: LogKind
  readonly lines: number
  readonly filters: LogFilters
}

/** What was written since `cursor` (from the log's end when null): `{ op: 'follow' }`. */
export interface FollowRequest {
  readonly op: 'follow'
  readonly kind: LogKind
  readonly cursor: LogCursor | null
  readonly filters: LogFilters
}

export type LogsRequest = TailRequest | FollowRequest

/** A read's answer: entries oldest first, and where a follower goes on from. */
export interface LogsAnswer {
  readonly entries: readonly LogEntry[]
  /** The end of the current log as read: a follow from here gets what is written next. */
  readonly cursor: LogCursor
  /**
   * Tail: the read stopped at its byte budget before it found `lines` entries or reached `since` (older entries
   * exist that were not looked at). Follow: more was written than one call reads; the next call goes on.
   */
  readonly truncated: boolean
}

/** The cursor as an SSE event id: `<inode>-<offset>`. */
export const cursorId = (cursor: LogCursor): string => `${cursor.inode}-${cursor.offset}`

/** The cursor an SSE event id names, or null when it is not one. */
export function cursorOf(id: string): LogCursor | null {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(id)
  if (!match) return null
  return { inode: Number(match[1]), offset: Number(match[2]) }
}
