// Each site's own logs rotated and kept by the node's policy (log-rotation.ts): nginx's access and error logs in
// its `logs/` (root's: a new empty file made in place, nginx reloaded once to open them all), and PHP's error log in
// `logs/php/` (the site's user's folder: renamed there, never followed, and made again by PHP at its next message).

import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type RotationPolicy, rotateLog } from './log-rotation.ts'

/**
 * Rotates the logs of every site under `sitesDir` (`<dataDir>/sites`) that passed the policy's size or age, and
 * deletes their rotated files past its retention; calls `reopenNginx` once when one of nginx's was rotated (the
 * runtime reloads nginx: its workers cannot open files in the sites' `logs/`, so SIGUSR1 would not do).
 */
export async function rotateSiteLogs(
  sitesDir: string,
  reopenNginx: () => void,
  policy: RotationPolicy,
): Promise<void> {
  let reopen = false
  const rotated = () => {
    reopen = true
  }
  // One site's logs that cannot be rotated (its user put a folder where `error.log.1` goes) stop no other's.
  const failures: string[] = []
  const attempt = (rotation: Promise<boolean>) =>
    rotation.catch((error: Error) => {
      failures.push(error.message)
    })
  for (const name of await readdir(sitesDir).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue
    const logs = join(sitesDir, name, 'logs')
    await attempt(rotateLog(join(logs, 'access.log'), rotated, policy))
    await attempt(rotateLog(join(logs, 'error.log'), rotated, policy))
    await attempt(rotateLog(join(logs, 'php', 'error.log'), () => {}, policy, { create: false }))
  }
  if (reopen) reopenNginx()
  if (failures.length > 0) throw new Error(`rotating sites' logs: ${failures.slice(0, 5).join('; ')}`)
}
