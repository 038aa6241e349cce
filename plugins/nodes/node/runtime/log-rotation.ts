// The node's logs kept to a size and an age: no logrotate or cron on a node, so the runtime's watch does it, for
// nginx's error log, each site master's PHP-FPM log and each site's access, error and PHP logs
// (site-log-rotation.ts). A log past `maxBytes`, or older than `maxAgeMs` (since its first write), becomes
// `<log>.1` (the older ones moving up), a new empty file takes its place with the same owner and mode (unless the
// program makes it itself: PHP opens its error log at each message), and its master is told to open it again (nginx
// and PHP-FPM both reopen their logs on SIGUSR1); until then it goes on writing to `<log>.1`. Rotated logs last
// written more than `retentionMs` ago, and those past `keep`, are deleted. Nothing is compressed: the logs API
// reads rotated files as they are, and `<log>.1` is where traffic counting finds the end of a rotated access log.

import { chmod, chown, lstat, open, rename, rm } from 'node:fs/promises'

/** When logs are rotated, how long and how many rotated ones are kept, and how often they are looked at. */
export interface RotationPolicy {
  /** A log past this size is rotated. Default 10 MiB (`LOG_ROTATE_MB`). */
  readonly maxBytes: number
  /** The most rotated files kept per log (`<log>.1` … `<log>.<keep>`). Default 30. */
  readonly keep: number
  /** At most once per this many ms (the watch's every look when 0). Default a minute. */
  readonly everyMs?: number
  /** A log that is not empty is rotated once its first write is this old. Default a day (`LOG_ROTATE_HOURS`). */
  readonly maxAgeMs?: number
  /** Rotated logs last written longer ago than this are deleted. Default 14 days (`LOG_RETENTION_DAYS`). */
  readonly retentionMs?: number
  /** The clock, in ms since the epoch (tests move it). Default `Date.now`. */
  readonly now?: () => number
}

const hour = 3_600_000
const day = 24 * hour

export const defaultRotation: RotationPolicy = {
  maxBytes: 10 * 1024 * 1024,
  keep: 30,
  everyMs: 60_000,
  maxAgeMs: day,
  retentionMs: 14 * day,
}

/**
 * The policy the node's environment sets: `LOG_RETENTION_DAYS` (default 14), `LOG_ROTATE_MB` (10),
 * `LOG_ROTATE_HOURS` (24), `LOG_KEEP_FILES` (30). Throws naming a setting that is not a positive whole number.
 */
export function rotationFromEnv(env: Readonly<Record<string, string | undefined>>): RotationPolicy {
  const setting = (name: string, fallback: number, most: number) => {
    const text = env[name]
    if (text === undefined || text === '') return fallback
    const value = Number(text)
    if (!Number.isInteger(value) || value < 1 || value > most)
      throw new Error(`${name} must be a whole number, 1 to ${most}`)
    return value
  }
  return {
    ...defaultRotation,
    maxBytes: setting('LOG_ROTATE_MB', 10, 100_000) * 1024 * 1024,
    keep: setting('LOG_KEEP_FILES', 30, 1000),
    maxAgeMs: setting('LOG_ROTATE_HOURS', 24, 24 * 366) * hour,
    retentionMs: setting('LOG_RETENTION_DAYS', 14, 3660) * day,
  }
}

const missing = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error
}

/**
 * Deletes `path`'s rotated files past the policy's `keep` or last written before its retention: the numbers go up
 * with age, so from the first such file on, all of them. Links and other entries in their place go alike (never
 * followed).
 */
export async function pruneRotated(path: string, policy: RotationPolicy, now: number): Promise<number> {
  let first = 0
  for (let index = 1; index <= policy.keep + 1; index++) {
    const stats = await lstat(`${path}.${index}`).catch(() => null)
    if (!stats) return 0
    const expired = policy.retentionMs !== undefined && now - stats.mtimeMs > policy.retentionMs
    if (index > policy.keep || expired) {
      first = index
      break
    }
  }
  let removed = 0
  for (let index = first; ; index++) {
    const name = `${path}.${index}`
    if (!(await lstat(name).catch(() => null))) break
    await rm(name, { force: true })
    removed++
  }
  return removed
}

/**
 * Rotates `path` when it passed the policy's size or age, then calls `reopen` (which signals its master); answers
 * whether it rotated. Rotated files past the retention go first. A log that does not exist, or is not a regular
 * file (a link in its place is never followed), is left alone. `create: false` leaves the new log to its program.
 */
export async function rotateLog(
  path: string,
  reopen: () => void,
  policy: RotationPolicy = defaultRotation,
  { create = true }: { readonly create?: boolean } = {},
): Promise<boolean> {
  const now = policy.now?.() ?? Date.now()
  await pruneRotated(path, policy, now)
  const stats = await lstat(path).catch(() => null)
  if (!stats?.isFile()) return false
  // Where the filesystem keeps no birth time (0), logs rotate by size alone.
  const old =
    policy.maxAgeMs !== undefined &&
    stats.size > 0 &&
    stats.birthtimeMs > 0 &&
    now - stats.birthtimeMs >= policy.maxAgeMs
  if (stats.size <= policy.maxBytes && !old) return false
  await rm(`${path}.${policy.keep}`, { force: true })
  for (let index = policy.keep - 1; index >= 1; index--)
    await rename(`${path}.${index}`, `${path}.${index + 1}`).catch(missing)
  await rename(path, `${path}.1`)
  if (create) {
    // Made before the master reopens: a site's master (its user) could not make a file in root's folder.
    await (await open(path, 'wx', stats.mode & 0o777)).close()
    await chown(path, stats.uid, stats.gid)
    await chmod(path, stats.mode & 0o777)
  }
  reopen()
  return true
}

/** Sends `signal` to `pid` when there is one; one that ended meanwhile needs nothing. */
export function signalIfRunning(pid: number | null, signal: NodeJS.Signals): void {
  if (pid === null) return
  try {
    process.kill(pid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}
