// File operations the local driver builds on: whole-file writes that never leave a half-written file, and sizes.

import type { Dirent } from 'node:fs'
import { link, lstat, open, readdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** A temporary name beside `path`, unique to this write (same directory, so the final rename is atomic). */
function temporaryPath(path: string): string {
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('hex')
  return `${path}.${process.pid}.${random}.tmp`
}

/** Writes `content` to a temporary file, flushed to disk, and returns its path. */
async function writeTemporary(path: string, content: string, mode: number): Promise<string> {
  const temporary = temporaryPath(path)
  const handle = await open(temporary, 'wx', mode)
  try {
    await handle.writeFile(content)
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(temporary, { force: true })
    throw error
  }
  await handle.close()
  return temporary
}

/**
 * Replaces `path` with `content` atomically: readers see the old file or the new one, never a mix, even after a
 * crash. Checks `signal` before writing and before the rename, so an aborted step changes nothing.
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  signal: AbortSignal,
  mode = 0o644,
): Promise<void> {
  signal.throwIfAborted()
  const temporary = await writeTemporary(path, content, mode)
  try {
    signal.throwIfAborted()
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
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
): Promise<boolean> {
  signal.throwIfAborted()
  const temporary = await writeTemporary(path, content, mode)
  try {
    signal.throwIfAborted()
    await link(temporary, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    await rm(temporary, { force: true })
  }
}

/** Bytes of the regular files (and links themselves) under `dir`, not following symbolic links; 0 if it is gone. */
export async function directoryBytes(dir: string): Promise<number> {
  let entries: Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw error
  }
  let total = 0
  for (const entry of entries) {
    if (entry.isDirectory()) continue
    try {
      total += (await lstat(join(entry.parentPath, entry.name))).size
    } catch (error) {
      // Removed while we counted (a log rotated): it takes no space any more.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return total
}
