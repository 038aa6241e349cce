// Traffic from the sites' nginx access logs: each log read on from where the last reading stopped (its inode and
// offset kept in a file), whole lines only, starting over when the log was truncated or replaced by a rotation.

import { constants } from 'node:fs'
import { lstat, open, readFile } from 'node:fs/promises'
import { writeFileAtomic } from './atomic-files.ts'

/** Where a log was read up to. */
interface Offset {
  readonly inode: number
  readonly offset: number
}

/** What was read of one log. */
export interface LogCount {
  readonly requests: number
  readonly bytes: number
}

/** The last field of a line in the `plinth` format: `$bytes_sent`, after the quoted user agent. */
const bytesSent = /" (\d+)$/

/** Counts the complete lines of `buffer`; returns the counts and how many bytes of it the complete lines take. */
export function countLines(buffer: Buffer): LogCount & { consumed: number } {
  const end = buffer.lastIndexOf(0x0a) + 1
  let requests = 0
  let bytes = 0
  for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) {
    const match = bytesSent.exec(line)
    if (!match) continue
    requests++
    bytes += Number(match[1])
  }
  return { requests, bytes, consumed: end }
}

const never = new AbortController().signal

/** Most bytes read of one log per call (a huge backlog is read over several calls, never all in memory). */
const maxReadBytes = 64 * 1024 * 1024

/** Reads `path` from `from` to its end (a regular file, never through a link); null when it is not there. */
async function readFrom(path: string, from: (inode: number, size: number) => number) {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) return null
    const start = from(stats.ino, stats.size)
    const buffer = Buffer.alloc(Math.min(stats.size - start, maxReadBytes))
    let read = 0
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, start + read)
      if (bytesRead === 0) break
      read += bytesRead
    }
    return { inode: stats.ino, start, counts: countLines(buffer.subarray(0, read)) }
  } finally {
    await handle.close()
  }
}

/**
 * The requests and bytes in each site's access log since the last call, and the offsets moved on (in
 * `offsetsFile`). A log whose inode changed was rotated: the rest of the old one is read from `<log>.1` when it is
 * there, then the new one from its start; a log shorter than the offset was truncated and is read from its start.
 */
export async function readAccessLogs(
  logs: ReadonlyMap<string, string>,
  offsetsFile: string,
): Promise<Map<string, LogCount>> {
  let offsets: Record<string, Offset> = {}
  try {
    offsets = JSON.parse(await readFile(offsetsFile, 'utf8')) as Record<string, Offset>
  } catch {
    // None yet (or unreadable): every log is read from its start.
  }
  const counts = new Map<string, LogCount>()
  const next: Record<string, Offset> = {}
  for (const [siteId, path] of logs) {
    const last = offsets[siteId]
    let requests = 0
    let bytes = 0
    const current = await readFrom(path, (inode, size) =>
      last && last.inode === inode && last.offset <= size ? last.offset : 0,
    )
    if (last && current && current.inode !== last.inode) {
      const rotated = await lstat(`${path}.1`).catch(() => null)
      if (rotated?.ino === last.inode) {
        const rest = await readFrom(`${path}.1`, (_inode, size) => Math.min(last.offset, size))
        requests += rest?.counts.requests ?? 0
        bytes += rest?.counts.bytes ?? 0
      }
    }
    if (!current) continue
    requests += current.counts.requests
    bytes += current.counts.bytes
    next[siteId] = { inode: current.inode, offset: current.start + current.counts.consumed }
    counts.set(siteId, { requests, bytes })
  }
  await writeFileAtomic(offsetsFile, `${JSON.stringify(next)}\n`, never, 0o600)
  return counts
}
