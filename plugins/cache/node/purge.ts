// Purging a site's nginx FastCGI cache on the node: nginx OSS has no purge, so the cache's files are deleted, each at
// the path nginx keeps it under (`levels=1:2`: the md5 of its key, the last hex digit and the two before it as
// folders). The key is `$scheme$request_method$request_uri` (server-block-cache.ts in the node runtime). nginx finds
// a deleted file missing at the next request and fills it again (MISS).

import { createHash } from 'node:crypto'
import { readdir, rm, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** A site's cache folder on the node: `<dataDir>/nginx/page-cache/<site id>`, beside `<dataDir>/sites/<site id>`. */
export const cacheDirOf = (home: string, siteId: string) =>
  join(dirname(dirname(home)), 'nginx', 'page-cache', siteId)

/** The files a path's answers may be cached in: HTTP and HTTPS, GET and HEAD. */
export function cacheFilesOf(dir: string, path: string): string[] {
  const files: string[] = []
  for (const scheme of ['http', 'https'])
    for (const method of ['GET', 'HEAD']) {
      const md5 = createHash('md5').update(`${scheme}${method}${path}`).digest('hex')
      files.push(join(dir, md5.slice(-1), md5.slice(-3, -1), md5))
    }
  return files
}

/** Deletes the cached answers of `paths`, or every one when `paths` is null; resolves with how many it removed. */
export async function purgeCache(dir: string, paths: readonly string[] | null): Promise<number> {
  let removed = 0
  if (paths === null) {
    const entries = await readdir(dir).catch(() => [] as string[])
    for (const entry of entries) {
      removed += (await countFiles(join(dir, entry))) ?? 0
      await rm(join(dir, entry), { recursive: true, force: true })
    }
    return removed
  }
  for (const path of new Set(paths))
    for (const file of cacheFilesOf(dir, path))
      removed += await unlink(file).then(
        () => 1,
        () => 0,
      )
  return removed
}

/** The files under a level folder (what a purge of all removes), or null when it is gone. */
async function countFiles(dir: string): Promise<number | null> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => null)
  return entries === null ? null : entries.filter((entry) => entry.isFile()).length
}
