// A sample of a site's regular files taken before its backup (SHA-256, size, modification time), which the check
// after it compares with the same files restored from the snapshot: a file changed while the backup ran is skipped
// (the snapshot may hold either version), one left alone must come back byte for byte.

import { constants } from 'node:fs'
import { lstat, open, readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { runtimeHomeFiles, runtimeHomePrefix } from '../../nodes/node/contract.ts'

/** A file of the site as it was before the backup. */
export interface SampledFile {
  /** Its path on the node. */
  readonly path: string
  /** Its path in the site (`/htdocs/index.php`). */
  readonly sitePath: string
  readonly size: number
  readonly mtimeMs: number
  /** Set for those hashed before the backup. */
  sha256: string | null
}

/** What is in the site's files (its home but `tmp/` and the runtime's files), links never followed. */
export interface SiteFiles {
  /** A uniform random sample of its regular files (all of them when few), shuffled: the sample is its first ones. */
  readonly files: readonly SampledFile[]
}

/** The top entries of a home the backup leaves out: its temporary files and the runtime's own. */
export const excludedAtTop: ReadonlySet<string> = new Set(['tmp', ...runtimeHomeFiles])

/** The name a restore's folder at the top of a home starts with (restore-files.ts): never backed up either. */
export const restoreFolderPrefix = `${runtimeHomePrefix}restore-`

/** How many of a site's files its listing keeps: the sample and spares for files that change meanwhile. */
export const keptForSample = 256

/**
 * Regular files of the home in random order, walked without following a link: a uniform sample of at most `keep`
 * of them (reservoir sampling), so a site of a million files costs no more memory than one of a hundred.
 */
export async function siteFiles(
  home: string,
  signal: AbortSignal,
  keep: number = keptForSample,
): Promise<SiteFiles> {
  const files: SampledFile[] = []
  let seen = 0
  const walk = async (dir: string, top: boolean): Promise<void> => {
    signal.throwIfAborted()
    let entries: import('node:fs').Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (top && (excludedAtTop.has(entry.name) || entry.name.startsWith(restoreFolderPrefix))) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) await walk(path, false)
      else if (entry.isFile()) {
        const stats = await lstat(path).catch(() => null)
        if (!stats?.isFile()) continue
        const file = {
          path,
          sitePath: `/${relative(home, path)}`,
          size: stats.size,
          mtimeMs: stats.mtimeMs,
          sha256: null,
        }
        seen++
        if (files.length < keep) files.push(file)
        else {
          const slot = Math.floor(Math.random() * seen)
          if (slot < keep) files[slot] = file
        }
      }
    }
  }
  await walk(home, true)
  for (let i = files.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[files[i], files[j]] = [files[j] as SampledFile, files[i] as SampledFile]
  }
  return { files }
}

/**
 * SHA-256 of a regular file, in hex; refused for anything else. Read as root from a tree the site changes at will:
 * a file swapped meanwhile for a link is not followed, nor a FIFO waited on.
 */
export async function sha256Of(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file')
    const hash = new Bun.CryptoHasher('sha256')
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer)
    return hash.digest('hex')
  } finally {
    await handle.close()
  }
}

/** Hashes the first `count` files of the site (its sample) before the backup. */
export async function hashSample(site: SiteFiles, count: number): Promise<SampledFile[]> {
  const sample = site.files.slice(0, count)
  for (const file of sample) file.sha256 = await sha256Of(file.path).catch(() => null)
  return sample.filter((file) => file.sha256 !== null)
}

/** Whether a file is as it was when listed (same size and modification time): one changed since is skipped. */
export async function unchanged(file: SampledFile): Promise<boolean> {
  const now = await lstat(file.path).catch(() => null)
  return Boolean(now?.isFile() && now.size === file.size && now.mtimeMs === file.mtimeMs)
}
