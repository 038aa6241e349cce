// Reading a site's logs as root without trusting them: each file opened without following a link, refused unless it
// is a regular file of the expected owner with one name (no hard link to another file), read in bounded chunks:
// backwards from the end for the last entries (through the rotated files, newest first, when `since` or `lines`
// reaches back), forwards from a cursor for a follower. A 1 GB log costs a tail what it reads, never its size.

import { constants } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { multiLine, parserOf, passes, withContinuation } from './parse.ts'
import type { LogCursor, LogEntry, LogFilters, LogKind, LogsAnswer } from './protocol.ts'

/** How much one tail reads at most, every file together: past it, it answers what it found (`truncated`). */
export const tailBudgetBytes = 32 * 1024 * 1024
/** How much one follow call reads at most: a log that grew more is read on over the next calls. */
export const followBudgetBytes = 1024 * 1024
/** The most rotated files a tail looks at (`<log>.1` … `<log>.N`). */
const maxRotated = 1000
const chunkBytes = 64 * 1024

/** Whether the reader trusts a log owned by this user id (see the service's `ownersOf`). */
export type Owners = (uid: number) => boolean

interface OpenLog {
  readonly handle: FileHandle
  readonly inode: number
  readonly size: number
}

/** `path` opened for reading when it is a regular file of `owners` with one link; null otherwise (or missing). */
export async function openLog(path: string, owners: Owners): Promise<OpenLog | null> {
  let handle: FileHandle
  try {
    handle = await open(
      path,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
    )
  } catch {
    return null
  }
  const stats = await handle.stat().catch(() => null)
  if (!stats?.isFile() || stats.nlink !== 1 || !owners(stats.uid)) {
    await handle.close()
    return null
  }
  return { handle, inode: stats.ino, size: stats.size }
}

/** Reads `length` bytes at `position` (fewer at the file's end). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  let read = 0
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read)
    if (bytesRead === 0) break
    read += bytesRead
  }
  return buffer.subarray(0, read)
}

/** Gathers entries newest first from lines given newest first; lines that go on an entry wait for its first. */
function newestFirst(kind: LogKind, filters: LogFilters, wanted: number) {
  const parse = parserOf(kind)
  const since = filters.since ? new Date(filters.since).toISOString() : null
  const found: LogEntry[] = []
  let pending: string[] = []
  let done = false
  return {
    found,
    get done() {
      return done
    },
    /** Takes one line; answers false once enough was found or `since` was passed. */
    line(bytes: Buffer): boolean {
      const text = bytes.toString('utf8')
      if (text === '') return true
      const entry = parse(text)
      if (!entry) {
        if (multiLine(kind)) pending.unshift(text)
        return true
      }
      const whole = withContinuation(entry, pending)
      const wholeText = pending.length > 0 ? [text, ...pending].join('\n') : text
      pending = []
      if (since !== null && whole.time < since) {
        done = true
        return false
      }
      if (passes(whole, wholeText, filters)) found.push(whole)
      if (found.length >= wanted) done = true
      return !done
    },
  }
}

/**
 * The last `lines` entries of `paths` (the log, then its rotated files newest first) that pass `filters`, oldest
 * first, and the cursor at the end of the log's last whole line.
 */
export async function tailLog(
  paths: readonly string[],
  owners: Owners,
  kind: LogKind,
  lines: number,
  filters: LogFilters,
  budget = tailBudgetBytes,
): Promise<LogsAnswer> {
  const gather = newestFirst(kind, filters, lines)
  let cursor: LogCursor = { inode: 0, offset: 0 }
  let left = budget
  let truncated = false
  for (const [index, path] of paths.entries()) {
    if (gather.done) break
    const log = await openLog(path, owners)
    if (!log) {
      // A rotation moves the files up one by one: a gap ends the rotated ones.
      if (index === 0) continue
      break
    }
    try {
      let position = log.size
      let carry = Buffer.alloc(0)
      let first = true
      while (!gather.done) {
        if (position === 0) {
          gather.line(carry)
          break
        }
        if (left <= 0) {
          truncated = true
          break
        }
        const length = Math.min(chunkBytes, position, left)
        position -= length
        left -= length
        let block = Buffer.concat([await readAt(log.handle, position, length), carry])
        if (first && index === 0) {
          // What follows the last newline is a line still being written: the follower reads it whole later.
          const end = block.lastIndexOf(0x0a) + 1
          if (end === 0 && position > 0) {
            carry = block
            continue
          }
          cursor = { inode: log.inode, offset: position + end }
          block = block.subarray(0, end)
        }
        first = false
        let lineEnd = block.length
        if (block[lineEnd - 1] === 0x0a) lineEnd--
        for (;;) {
          const start = block.lastIndexOf(0x0a, lineEnd - 1) + 1
          if (start === 0) {
            carry = block.subarray(0, lineEnd)
            break
          }
          if (!gather.line(block.subarray(start, lineEnd))) break
          lineEnd = start - 1
        }
      }
    } finally {
      await log.handle.close()
    }
    if (truncated) break
  }
  if (cursor.inode === 0) {
    const current = paths[0] ? await openLog(paths[0], owners) : null
    if (current) {
      cursor = { inode: current.inode, offset: current.size }
      await current.handle.close()
    }
  }
  return { entries: gather.found.toReversed(), cursor, truncated }
}

/** The rotated files of `path` in the order a tail reads them: `<path>.1`, `<path>.2`, … */
export const rotatedPaths = (path: string) => [
  path,
  ...Array.from({ length: maxRotated }, (_, index) => `${path}.${index + 1}`),
]

/** Entries from lines read oldest first; lines before any first line of an entry stand as entries of their own. */
function oldestFirst(kind: LogKind, filters: LogFilters, lines: readonly string[], fallbackTime: string) {
  const parse = parserOf(kind)
  const entries: LogEntry[] = []
  let current: { entry: LogEntry; text: string[] } | null = null
  const flush = () => {
    if (!current) return
    const [first, ...rest] = current.text
    const whole = withContinuation(current.entry, rest)
    if (passes(whole, [first, ...rest].join('\n'), filters)) entries.push(whole)
    current = null
  }
  for (const text of lines) {
    if (text === '') continue
    const entry = parse(text)
    if (entry) {
      flush()
      current = { entry, text: [text] }
    } else if (multiLine(kind)) {
      if (current) (current as { text: string[] }).text.push(text)
      else current = { entry: { time: fallbackTime, level: 'message', message: text }, text: [text] }
    }
  }
  flush()
  return entries
}

/** The whole lines of `log` from `from` (after the next newline when `from` is inside a line), within `budget`. */
async function readForward(log: OpenLog, from: number, budget: number) {
  let start = from
  if (start > 0 && start <= log.size) {
    const before = await readAt(log.handle, start - 1, 1)
    if (before[0] !== 0x0a) {
      const probe = await readAt(log.handle, start, Math.min(budget, log.size - start))
      const newline = probe.indexOf(0x0a)
      if (newline < 0) return { lines: [] as string[], end: start, more: false }
      start += newline + 1
    }
  }
  const length = Math.min(budget, log.size - start)
  const block = await readAt(log.handle, start, Math.max(0, length))
  const end = block.lastIndexOf(0x0a) + 1
  const lines = block.subarray(0, end).toString('utf8').split('\n')
  lines.pop()
  return { lines, end: start + end, more: start + length < log.size }
}

/**
 * What was written to `path` since `cursor`: the rest of the rotated file the cursor was in (`<path>.1`) first,
 * then the log from its start; the log's end when `cursor` is null (a new follower) or names a file no longer there.
 */
export async function followLog(
  path: string,
  owners: Owners,
  kind: LogKind,
  cursor: LogCursor | null,
  filters: LogFilters,
  budget = followBudgetBytes,
): Promise<LogsAnswer> {
  const now = new Date().toISOString()
  const current = await openLog(path, owners)
  if (!current) return { entries: [], cursor: cursor ?? { inode: 0, offset: 0 }, truncated: false }
  try {
    if (cursor === null)
      return { entries: [], cursor: { inode: current.inode, offset: current.size }, truncated: false }
    const entries: LogEntry[] = []
    let from = cursor.offset
    if (cursor.inode !== current.inode) {
      from = 0
      const rotated = await openLog(`${path}.1`, owners)
      if (rotated?.inode !== cursor.inode) {
        await rotated?.handle.close()
        // A cursor naming neither file (a client's own, or one older than the last rotation): the log's end. One
        // made while the log did not exist yet (inode 0): the new log from its start.
        if (cursor.inode !== 0)
          return { entries: [], cursor: { inode: current.inode, offset: current.size }, truncated: false }
      } else {
        try {
          const rest = await readForward(rotated, Math.min(cursor.offset, rotated.size), budget)
          entries.push(...oldestFirst(kind, filters, rest.lines, now))
          if (rest.more)
            return { entries, cursor: { inode: rotated.inode, offset: rest.end }, truncated: true }
        } finally {
          await rotated.handle.close()
        }
      }
    } else if (from > current.size) from = 0 // truncated meanwhile: read from the start
    const read = await readForward(current, from, budget)
    entries.push(...oldestFirst(kind, filters, read.lines, now))
    return { entries, cursor: { inode: current.inode, offset: read.end }, truncated: read.more }
  } finally {
    await current.handle.close()
  }
}
