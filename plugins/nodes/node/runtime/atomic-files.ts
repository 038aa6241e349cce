// File operations the site runtime builds on: whole-file writes that never leave a half-written file, and the
// removal of temporary files a killed process left behind.

import { link, lstat, open, readdir, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Who a file written by root belongs to (a site's user), set on the temporary file before it is put in place. */
export interface FileOwner {
  readonly uid: number
  readonly gid: number
}

/** Temporary files of this process's writes still under way: never taken for abandoned ones. */
const underWay = new Set<string>()

/** What follows `<name>.` in a temporary file's name: the writer's pid and a random part. */
const temporarySuffix = /^(\d+)\.[0-9a-f]{12}\.tmp$/

/** How old another live process's temporary file must be to count as abandoned; a write takes milliseconds. */
const abandonedAfterMs = 60_000

/** A temporary name beside `path`, unique to this write (same directory, so the final rename is atomic). */
function temporaryPath(path: string): string {
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('hex')
  return `${path}.${process.pid}.${random}.tmp`
}

/**
 * Writes `content` to a temporary file, flushed to disk, and returns its path (marked under way until released).
 * `wx` never follows a link planted at the temporary name; the mode and owner are set on the open file.
 */
async function writeTemporary(
  path: string,
  content: string,
  mode: number,
  owner: FileOwner | undefined,
): Promise<string> {
  const temporary = temporaryPath(path)
  underWay.add(temporary)
  try {
    const handle = await open(temporary, 'wx', mode)
    try {
      await handle.chmod(mode)
      if (owner) await handle.chown(owner.uid, owner.gid)
      await handle.writeFile(content)
      await handle.sync()
    } catch (error) {
      await handle.close()
      await rm(temporary, { force: true })
      throw error
    }
    await handle.close()
  } catch (error) {
    underWay.delete(temporary)
    throw error
  }
  return temporary
}

/** Whether a process with this pid exists (one we may not signal exists too). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary files that writes of `paths` left behind when their process died between writing and
 * renaming (SIGKILL, a power cut): those of a pid that no longer runs; of this process's pid but not under way here
 * (a restarted server often gets its predecessor's pid, in a container always); or, of another live process, older
 * than a minute. Writes under way, here or in another process, are left alone, and so is every other file (a
 * customer's `notes.tmp` included). Resolves to how many it removed.
 */
export async function removeAbandonedTemporaries(paths: readonly string[]): Promise<number> {
  let removed = 0
  for (const path of paths) {
    const prefix = `${basename(path)}.`
    let names: string[]
    try {
      names = await readdir(dirname(path))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    for (const name of names) {
      const pid = name.startsWith(prefix) ? temporarySuffix.exec(name.slice(prefix.length))?.[1] : undefined
      if (pid === undefined) continue
      const temporary = join(dirname(path), name)
      if (underWay.has(temporary)) continue
      if (Number(pid) !== process.pid && processExists(Number(pid))) {
        const stats = await lstat(temporary).catch(() => null)
        if (!stats || Date.now() - stats.mtimeMs < abandonedAfterMs) continue
      }
      await rm(temporary, { force: true })
      removed++
    }
  }
  return removed
}

/**
 * Replaces `path` with `content` atomically: readers see the old file or the new one, never a mix, even after a
 * crash. Checks `signal` before writing and before the rename, so an aborted step changes nothing. `mode` defaults
 * to 0644 (exactly, whatever the umask); `owner` to the process's user.
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  signal: AbortSignal,
  mode = 0o644,
  owner?: FileOwner,
): Promise<void> {
  signal.throwIfAborted()
  const temporary = await writeTemporary(path, content, mode, owner)
  try {
    signal.throwIfAborted()
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  } finally {
    underWay.delete(temporary)
  }
}

/**
 * Creates `path` with `content` unless it exists (then leaves it alone): written whole under a temporary name,
 * then linked into place, so two writers at once agree on one file and nobody reads a half-written one.
 * Resolves true when this call created the file.
 */
export async function writeFileIfAbsent(
  path: string,
  content: string,
  signal: AbortSignal,
  mode = 0o644,
  owner?: FileOwner,
): Promise<boolean> {
  signal.throwIfAborted()
  const temporary = await writeTemporary(path, content, mode, owner)
  try {
    signal.throwIfAborted()
    await link(temporary, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    await rm(temporary, { force: true })
    underWay.delete(temporary)
  }
}
