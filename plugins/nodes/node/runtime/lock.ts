// One change at a time per data directory: a server block written, checked and reloaded must not interleave with
// another site's, or one site's broken block would fail the other's check. The masters' start and stop also hold a
// lock across processes.

import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'

const tails = new Map<string, Promise<unknown>>()

/** Runs `task` after every task queued before it under `key` (in this process) has settled. */
export async function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve()
  const current = previous.catch(() => {}).then(task)
  tails.set(key, current)
  try {
    return await current
  } finally {
    if (tails.get(key) === current) tails.delete(key)
  }
}

/**
 * Runs `task` holding the lock `dir` (made with mkdir, which only one process wins; it names its holder's pid) across
 * processes: two panel instances serving one data directory must not both start its masters, nor one end as a
 * leftover the master the other is starting. A lock whose holder died (killed while holding it) is taken over.
 */
export async function acrossProcesses<T>(dir: string, task: () => Promise<T>, waitMs = 60_000): Promise<T> {
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      mkdirSync(dir, { mode: 0o700 })
      writeFileSync(`${dir}/pid`, String(process.pid))
      break
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException
      // No directory to lock in: nothing was ever started there, nothing to contend over.
      if (code === 'ENOENT') return task()
      if (code !== 'EEXIST') throw error
    }
    if (!holderAlive(dir)) {
      rmSync(dir, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline)
      throw new Error(`${dir} stayed locked by another process for ${waitMs / 1000} s`)
    await Bun.sleep(50)
  }
  try {
    return await task()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether the process named in the lock still runs (a lock just made, its pid not yet written, counts as held). */
function holderAlive(dir: string): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(`${dir}/pid`, 'utf8'))
  } catch {
    // Made a moment ago, or its holder died between the two steps: held unless it stays so for a second.
    try {
      return Date.now() - statSync(dir).mtimeMs < 1_000
    } catch {
      return false
    }
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
