// One change at a time per data directory: a server block written, checked and reloaded must not interleave with
// another site's, or one site's broken block would fail the other's check. The masters' start and stop also hold a
// lock across processes.

import { dlopen, FFIType } from 'bun:ffi'
import { closeSync, ftruncateSync, openSync, rmSync, writeSync } from 'node:fs'

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

/** flock(2) from the C library: a lock the kernel holds for an open file, freed when its holder dies. */
let flock: ((fd: number, operation: number) => number) | null = null
const lockExclusive = 2
const lockNonBlocking = 4

function takeFlock(fd: number): boolean {
  if (!flock) {
    const { symbols } = dlopen('libc.so.6', {
      flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    })
    flock = symbols.flock
  }
  return flock(fd, lockExclusive | lockNonBlocking) === 0
}

/** Opens the lock file, making it; null when its folder is missing. */
function openLock(path: string): number | null {
  for (;;) {
    try {
      return openSync(path, 'a', 0o600)
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException
      if (code === 'ENOENT') return null
      // A folder: the lock as earlier versions made it (mkdir, naming a pid), which nothing takes any more.
      if (code !== 'EISDIR') throw error
      rmSync(path, { recursive: true, force: true })
    }
  }
}

/**
 * Runs `task` holding the lock `path` across processes: two panel instances serving one data directory must not
 * both start its masters, nor one end as a leftover the master the other is starting. The kernel holds it (flock
 * on the file, which stays): a holder killed while holding it frees it at once, whoever gets its pid since, and
 * processes finding it free at the same moment cannot both take it (a lock naming its holder's pid, removed when
 * that pid looked dead, was taken by two of six such processes at once in one try out of three). Within one
 * process, each call opens the file afresh, so calls wait for each other too. The file names the holder's pid.
 */
export async function acrossProcesses<T>(path: string, task: () => Promise<T>, waitMs = 60_000): Promise<T> {
  const fd = openLock(path)
  // No folder to lock in: nothing was ever started there, nothing to contend over.
  if (fd === null) return task()
  try {
    const deadline = Date.now() + waitMs
    while (!takeFlock(fd)) {
      if (Date.now() > deadline)
        throw new Error(`${path} stayed locked by another process for ${waitMs / 1000} s`)
      await Bun.sleep(50)
    }
    ftruncateSync(fd, 0)
    writeSync(fd, `${process.pid}\n`)
    return await task()
  } finally {
    // Closing the file frees the lock. Nothing started meanwhile (the masters) holds it on: Bun opens files
    // close-on-exec.
    closeSync(fd)
  }
}
