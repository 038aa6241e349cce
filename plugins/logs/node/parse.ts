// A site's log lines as entries: nginx's access log in the runtime's `plinth` format, nginx's error log, and PHP's
// error log (whose messages may span several lines: a stack trace goes with the line that starts it).

import type { AccessEntry, LogEntry, LogFilters, LogKind, MessageEntry } from './protocol.ts'

const months: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
}

/** nginx writes `"` and bytes outside printable ASCII as `\xHH` (`escape=default`): printable ones are put back. */
const unescaped = (text: string) =>
  text.replace(/\\x([0-9A-Fa-f]{2})/g, (whole, hex: string) => {
    const code = Number.parseInt(hex, 16)
    return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : whole
  })

/** `-` is nginx's word for nothing. */
const orNull = (text: string) => (text === '-' || text === '' ? null : unescaped(text))

/** `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $bytes_sent` */
const accessLine =
  /^(\S+) - \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\] "([^"]*)" (\d{3}) (\d+) "([^"]*)" "([^"]*)" (\d+)/

/** An access log line as an entry, or null when it is not one of the `plinth` format. */
export function parseAccessLine(line: string): AccessEntry | null {
  const match = accessLine.exec(line)
  if (!match) return null
  const [, address, day, month, year, hour, minute, second, sign, offsetHours, offsetMinutes] = match
  const [request, status, bytes, referrer, userAgent, bytesSent] = match.slice(11)
  const monthIndex = months[month as string]
  if (monthIndex === undefined) return null
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes))
  const time =
    Date.UTC(Number(year), monthIndex, Number(day), Number(hour), Number(minute), Number(second)) -
    offset * 60_000
  // A request line nginx could not read (a TLS handshake sent to the HTTP port) is logged as it came.
  const parts = (request as string).split(' ')
  const [method, path, protocol] = parts.length === 3 ? parts : ['', request as string, '']
  return {
    time: new Date(time).toISOString(),
    remoteAddress: address as string,
    method: unescaped(method as string),
    path: unescaped(path as string),
    protocol: protocol as string,
    status: Number(status),
    bytes: Number(bytes),
    bytesSent: Number(bytesSent),
    referrer: orNull(referrer as string),
    userAgent: orNull(userAgent as string),
  }
}

/** `2026/11/29 16:47:24 [error] 123#123: *1 message`, in the node's local time. */
const nginxErrorLine = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2}) \[(\w+)\] \d+#\d+: (.*)$/

/** An nginx error log line as an entry, or null when it does not start one. */
export function parseNginxErrorLine(line: string): MessageEntry | null {
  const match = nginxErrorLine.exec(line)
  if (!match) return null
  const [, year, month, day, hour, minute, second, level, message] = match
  const time = new Date(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  )
  return { time: time.toISOString(), level: level as string, message: message as string }
}

/** `[29-Nov-2026 16:47:24 UTC] PHP Warning:  message`, in PHP's `date.timezone` (UTC unless the site set one). */
const phpLine = /^\[(\d{2})-(\w{3})-(\d{4}) (\d{2}):(\d{2}):(\d{2})(?: ([A-Za-z0-9_/+-]{1,40}))?\] (.*)$/
/** What PHP prefixes its own messages with; anything else was written by the site's code (`error_log()`). */
const phpLevel = /^PHP ([A-Za-z ]+?):\s+(.*)$/

/** The offset of `zone` from UTC at `utc` (ms), by the system's time zone database; 0 for one it does not know. */
function zoneOffset(zone: string, utc: number): number {
  if (zone === 'UTC' || zone === 'GMT') return 0
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(new Date(utc))
    const part = (type: string) => Number(parts.find((each) => each.type === type)?.value)
    const local = Date.UTC(
      part('year'),
      part('month') - 1,
      part('day'),
      part('hour'),
      part('minute'),
      part('second'),
    )
    return local - utc
  } catch {
    return 0
  }
}

/** A PHP error log line that starts an entry, as one; null for a line that goes on the one before (a stack trace). */
export function parsePhpLine(line: string): MessageEntry | null {
  const match = phpLine.exec(line)
  if (!match) return null
  const [, day, month, year, hour, minute, second, zone, text] = match
  const monthIndex = months[month as string]
  if (monthIndex === undefined) return null
  const wall = Date.UTC(Number(year), monthIndex, Number(day), Number(hour), Number(minute), Number(second))
  const time = wall - zoneOffset(zone ?? 'UTC', wall)
  const prefixed = phpLevel.exec(text as string)
  const level = prefixed ? phpLevelName(prefixed[1] as string) : 'message'
  return {
    time: new Date(time).toISOString(),
    level,
    message: prefixed ? (prefixed[2] as string) : (text as string),
  }
}

/** `Fatal error` → `fatal`, `Parse error` → `parse`, `Warning` → `warning`, `Stack trace` → `trace`. */
function phpLevelName(words: string): string {
  const lower = words.toLowerCase()
  if (lower.endsWith(' error')) return lower.slice(0, -' error'.length).replace(/ /g, '_')
  if (lower === 'stack trace') return 'trace'
  return lower.replace(/ /g, '_')
}

/** Whether entries of `kind` may span several lines (the lines that do not start one go with the one before). */
export const multiLine = (kind: LogKind) => kind === 'php'

/** The parser of `kind`'s lines. */
export function parserOf(kind: LogKind): (line: string) => LogEntry | null {
  if (kind === 'access') return parseAccessLine
  if (kind === 'error') return parseNginxErrorLine
  return parsePhpLine
}

/** What the filters say of an entry and its text, besides `since` (the readers stop at it). */
export function passes(entry: LogEntry, text: string, filters: LogFilters): boolean {
  if (filters.status && 'status' in entry) {
    const { status } = entry
    if (!filters.status.some(([low, high]) => status >= low && status <= high)) return false
  }
  if (filters.search && !text.toLowerCase().includes(filters.search.toLowerCase())) return false
  if (filters.since && entry.time < new Date(filters.since).toISOString()) return false
  return true
}

/** Adds lines that went on an entry to its message. */
export const withContinuation = (entry: LogEntry, lines: readonly string[]): LogEntry =>
  lines.length === 0 || !('message' in entry)
    ? entry
    : { ...entry, message: [entry.message, ...lines].join('\n') }
