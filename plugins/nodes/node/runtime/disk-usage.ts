// What a site's files take on disk, counted without ever following a symbolic link out of the site.

import type { Dirent } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { run } from './commands.ts'

/**
 * The bytes a site's home takes: `du` (C, a few hundred ms for a couple of hundred thousand files), never following a
 * link nor leaving the home's filesystem; the walk in process where `du` fails. For plain homes only: a home on an
 * image of its own is counted by its filesystem (`site-disks.ts`).
 */
export async function homeBytes(home: string, signal: AbortSignal): Promise<number> {
  const result = await run(['du', '-s', '-b', '-P', '-x', '--', home], { signal, timeoutMs: 300_000 })
  const bytes = Number(result.stdout.split('\t')[0])
  return result.code === 0 && Number.isFinite(bytes) ? bytes : directoryBytes(home)
}

/**
 * Bytes of the files under `dir` (a symbolic link counts as the link itself), 0 if it is gone. Walks one
 * directory at a time and enters only real directories: `readdir({ recursive: true })` in Bun follows links to
 * directories, which would count (and walk) whatever a site links to, `/` included.
 */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0
  const pending = [dir]
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    let entries: Dirent[]
    try {
      entries = await readdir(current, { withFileTypes: true })
    } catch (error) {
      // Gone while we counted (a directory removed, a log rotated): it takes no space any more.
      if (isGone(error)) continue
      throw error
    }
    for (const entry of entries) {
      const path = join(current, entry.name)
      if (entry.isDirectory()) {
        pending.push(path)
        continue
      }
      try {
        total += (await lstat(path)).size
      } catch (error) {
        if (!isGone(error)) throw error
      }
    }
  }
  return total
}

const isGone = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}
