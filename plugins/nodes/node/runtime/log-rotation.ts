// The node's own logs (nginx's error log, each site master's PHP-FPM log) kept to a size: no logrotate or cron on a
// node, so the runtime's watch does it. Past `maxBytes` a log becomes `<log>.1` (the older ones moving up, the
// oldest dropped), a new empty file takes its place with the same owner and mode, and its master is told to open
// it again (nginx and PHP-FPM both reopen their logs on SIGUSR1); until then it goes on writing to `<log>.1`.

import { chmod, chown, open, rename, rm, stat } from 'node:fs/promises'

/** How big a log grows before it is rotated, how many rotated ones are kept, and how often sizes are looked at. */
export interface RotationPolicy {
  readonly maxBytes: number
  readonly keep: number
  /** At most once per this many ms (the watch's every look when 0). Default a minute. */
  readonly everyMs?: number
}

export const defaultRotation: RotationPolicy = { maxBytes: 10 * 1024 * 1024, keep: 3, everyMs: 60_000 }

/**
 * Rotates `path` when it passed the policy's size, then calls `reopen` (which signals its master); answers whether
 * it rotated. A log that does not exist, or is not a regular file, is left alone.
 */
export async function rotateLog(
  path: string,
  reopen: () => void,
  policy: RotationPolicy = defaultRotation,
): Promise<boolean> {
  const stats = await stat(path).catch(() => null)
  if (!stats?.isFile() || stats.size <= policy.maxBytes) return false
  await rm(`${path}.${policy.keep}`, { force: true })
  for (let index = policy.keep - 1; index >= 1; index--)
    await rename(`${path}.${index}`, `${path}.${index + 1}`).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
  await rename(path, `${path}.1`)
  // Made before the master reopens: a site's master (its user) could not make a file in root's folder.
  await (await open(path, 'wx', stats.mode & 0o777)).close()
  await chown(path, stats.uid, stats.gid)
  await chmod(path, stats.mode & 0o777)
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
