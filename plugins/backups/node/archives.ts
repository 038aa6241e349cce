// Archives of snapshots (a `.tar.gz` a customer downloads) kept under the service's folder, root's only, per site,
// one at a time (a new one drops the site's older ones): read in pieces of at most 4 MiB (an agent's answer is 8 MiB,
// and base64 takes a third more), dropped when read, and removed on their own an hour after they were made.

import { open, readdir, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { NodeRefusal } from '../../nodes/node/contract.ts'
import type { ArchiveChunk } from './protocol.ts'

/** The most bytes one `archive.read` answers. */
export const archiveChunkBytes = 4 * 1024 * 1024
/** How long an archive is kept after it was made. */
export const archiveLifetimeMs = 3600_000

const archiveId = /^arc_[0-9a-f]{32}$/

/** The archives of one node process. */
export function archiveStore(dataDir: string) {
  const root = join(dataDir, 'archives')
  const pathOf = (siteId: string, id: string) => {
    if (!archiveId.test(id)) throw new NodeRefusal('archive_not_found', 'There is no such archive.')
    return join(root, siteId, `${id}.tar.gz`)
  }
  return {
    root,
    /** A new archive's id and where it is written. */
    allot(siteId: string): { id: string; path: string } {
      const id = `arc_${crypto.randomUUID().replaceAll('-', '')}`
      return { id, path: pathOf(siteId, id) }
    },
    /** `length` bytes (at most 4 MiB) from `offset`, base64; empty past the end. */
    async read(siteId: string, id: string, offset: number, length: number): Promise<ArchiveChunk> {
      const path = pathOf(siteId, id)
      const handle = await open(path, 'r').catch(() => {
        throw new NodeRefusal('archive_not_found', 'There is no such archive (it expired, or was dropped).')
      })
      try {
        const totalBytes = (await handle.stat()).size
        const wanted = Math.max(0, Math.min(length, archiveChunkBytes, totalBytes - offset))
        const buffer = Buffer.alloc(wanted)
        const { bytesRead } = wanted > 0 ? await handle.read(buffer, 0, wanted, offset) : { bytesRead: 0 }
        return { data: buffer.subarray(0, bytesRead).toString('base64'), totalBytes }
      } finally {
        await handle.close()
      }
    },
    async drop(siteId: string, id: string): Promise<void> {
      await rm(pathOf(siteId, id), { force: true })
    },
    /**
     * Removes the site's archives but `keep`: a site has one at a time. Archives are on the node's own disk, outside
     * any site's quota, and each download link makes one: kept until read or an hour old, a customer's links asked
     * for and never read would otherwise pile up copies of its site until the node's disk is full.
     */
    async dropOthers(siteId: string, keep: string): Promise<void> {
      const dir = dirname(pathOf(siteId, keep))
      for (const name of await readdir(dir).catch(() => [] as string[]))
        if (name !== basename(pathOf(siteId, keep))) await rm(join(dir, name), { force: true })
    },
    /** Removes the archives older than an hour (and those a stopped run left half made). */
    async sweep(now = Date.now()): Promise<void> {
      for (const site of await readdir(root).catch(() => [] as string[]))
        for (const name of await readdir(join(root, site)).catch(() => [] as string[])) {
          const path = join(root, site, name)
          const made = (await stat(path).catch(() => null))?.mtimeMs ?? 0
          if (now - made > archiveLifetimeMs) await rm(path, { force: true })
        }
    },
  }
}

export type ArchiveStore = ReturnType<typeof archiveStore>
