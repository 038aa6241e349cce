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
 * leftover the master the other is starting. A lock whose holder died (killed while holding it) is taken over,
 * also when its pid has since been given to another process (the lock stays on disk across reboots).
 */
export async function acrossProcesses<T>(dir: string, task: () => Promise<T>, waitMs = 60_000): Promise<T> {
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      mkdirSync(dir, { mode: 0o700 })
      writeFileSync(`${dir}/pid`, holderRecord(process.pid))
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

/**
 * Who process `pid` is beyond its pid, which the system gives again once it ends: this boot's id and the process's
 * start time since boot (`/proc/<pid>/stat`, field 22). Null when it is gone (or there is no /proc).
 */
function identityOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // After `pid (comm) `, fields from the third (state) on: the start time is the 22nd.
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return startTime ? `${boot} ${startTime}` : null
  } catch {
    return null
  }
}

/** What the lock says of its holder: `<pid> <boot id> <start time>`. */
function holderRecord(pid: number): string {
  const identity = identityOf(pid)
  return identity ? `${pid} ${identity}` : String(pid)
}

/**
 * Whether the process named in the lock still runs (a lock just made, its pid not yet written, counts as held): its
 * pid alive and, when the lock says who it was, the same process (not one given its pid since, nor one of another
 * boot).
 */
function holderAlive(dir: string): boolean {
  let record: string
  try {
    record = readFileSync(`${dir}/pid`, 'utf8').trim()
  } catch {
    // Made a moment ago, or its holder died between the two steps: held unless it stays so for a second.
    try {
      return Date.now() - statSync(dir).mtimeMs < 1_000
    } catch {
      return false
    }
  }
  const [pidText = '', ...identity] = record.split(' ')
  const pid = Number(pidText)
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return identity.length === 0 || identityOf(pid) === identity.join(' ')
}
