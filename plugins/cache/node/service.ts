// The node's `cache` service: purges a site's page cache as root, asked by the panel (`POST /sites/{id}/cache/purge`)
// or by the site's WordPress through its purge spool (`<home>/tmp/plinth-cache-purge/*.purge`, written by the
// must-use plugin on a content change), which the service watches every quarter second. A site can only ask for its
// own cache: the spool is in its own home, and the service purges the cache of the site whose home it read.

import { constants } from 'node:fs'
import { lstat, open, readdir, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  NodeRefusal,
  type NodeService,
  type NodeServiceHost,
  type NodeSite,
} from '../../nodes/node/contract.ts'
import {
  type CacheNodePurged,
  type CacheNodeRequest,
  maxPurgePaths,
  purgePathPattern,
  purgeSpoolFolder,
} from './protocol.ts'
import { cacheDirOf, purgeCache } from './purge.ts'

/** Options of {@link cacheNodeService}. */
export interface CacheServiceOptions {
  /** How often the sites' purge spools are read, in ms. Default 250. */
  readonly watchEveryMs?: number
}

/** The most spool files read in one round for a site, and the most bytes read of each. */
const maxSpoolFiles = 100
const maxSpoolBytes = 65_536
const spoolName = /^[A-Za-z0-9._-]{1,128}\.purge$/
const siteIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

/** The request checked again on the node. */
function checked(request: unknown): CacheNodeRequest {
  const given = (request ?? {}) as Record<string, unknown>
  if (given.op !== 'purge') throw new NodeRefusal('unknown_cache_operation', 'The cache service only purges')
  const paths = given.paths
  if (
    paths !== undefined &&
    !(
      Array.isArray(paths) &&
      paths.length <= maxPurgePaths &&
      paths.every((path) => typeof path === 'string' && purgePathPattern.test(path))
    )
  )
    throw new NodeRefusal('invalid_cache_path', `Paths are at most ${maxPurgePaths} paths starting with /`)
  return given as unknown as CacheNodeRequest
}

/** A spool file's text, read as root without following a link or blocking on a FIFO; null when it is not a plain file. */
async function readSpoolFile(path: string): Promise<string | null> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => null,
  )
  if (!file) return null
  try {
    const stats = await file.stat()
    if (!stats.isFile()) return null
    const buffer = Buffer.alloc(Math.min(stats.size, maxSpoolBytes))
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0)
    return buffer.subarray(0, bytesRead).toString('latin1')
  } finally {
    await file.close()
  }
}

/** The node's `cache` service. */
export function cacheNodeService(options: CacheServiceOptions = {}): NodeService {
  const watchEveryMs = options.watchEveryMs ?? 250

  /** Reads and clears `siteId`'s spool: purges what it asks, then removes the files read as the site's user. */
  async function drainSpool(host: NodeServiceHost, dataDir: string, siteId: string, signal: AbortSignal) {
    const spool = join(dataDir, 'sites', siteId, 'tmp', purgeSpoolFolder)
    const folder = await lstat(spool).catch(() => null)
    if (!folder?.isDirectory()) return
    const names = (await readdir(spool).catch(() => [] as string[]))
      .filter((name) => spoolName.test(name))
      .sort()
      .slice(0, maxSpoolFiles)
    if (names.length === 0) return
    let site: NodeSite
    try {
      site = await host.site(siteId)
    } catch {
      return
    }
    // The folder read is the site's own (a link swapped in meanwhile reads some other file, whose lines only ever
    // purge this site's cache).
    if (site.user && folder.uid !== site.user.uid) return
    const paths = new Set<string>()
    let all = false
    for (const name of names) {
      const text = await readSpoolFile(join(spool, name))
      for (const line of (text ?? '').split('\n')) {
        if (line === '*') all = true
        else if (purgePathPattern.test(line)) paths.add(line)
      }
    }
    const removed = await purgeCache(cacheDirOf(site.home, site.id), all ? null : [...paths])
    host.log('info', { siteId, paths: all ? '*' : paths.size, removed }, 'page cache purged by the site')
    await site.run(
      ['rm', '-f', '--', ...names.map((name) => join(site.home, 'tmp', purgeSpoolFolder, name))],
      { timeoutMs: 10_000 },
      signal,
    )
  }

  /** A cache folder of a site no longer on the node (deleted): removed. */
  async function dropIfGone(host: NodeServiceHost, root: string, siteId: string) {
    try {
      await host.site(siteId)
    } catch (error) {
      if (error instanceof NodeRefusal && error.code === 'site_not_on_node')
        await rm(join(root, siteId), { recursive: true, force: true })
    }
  }

  return {
    name: 'cache',
    async handle(site, request) {
      const { paths } = checked(request)
      const removed = await purgeCache(cacheDirOf(site.home, site.id), paths ?? null)
      return { removed } satisfies CacheNodePurged
    },
    async describe() {
      return { purge: 'files', spool: `tmp/${purgeSpoolFolder}` }
    },
    async start(host) {
      // The service's folder is `<dataDir>/services/cache`; the caches are nginx's, `<dataDir>/nginx/page-cache`.
      const dataDir = resolve(host.dataDir, '..', '..')
      const root = join(dataDir, 'nginx', 'page-cache')
      const stopped = new AbortController()
      let round = 0
      const watch = async () => {
        while (!stopped.signal.aborted) {
          round += 1
          const ids = (await readdir(root).catch(() => [] as string[])).filter((id) => siteIdPattern.test(id))
          for (const id of ids) {
            if (stopped.signal.aborted) break
            await drainSpool(host, dataDir, id, stopped.signal).catch((error) =>
              host.log('warn', { siteId: id, err: String(error) }, 'page cache purge spool failed'),
            )
            // Once a minute: the folders of sites deleted since.
            if (round % Math.max(1, Math.round(60_000 / watchEveryMs)) === 0) await dropIfGone(host, root, id)
          }
          await Bun.sleep(watchEveryMs)
        }
      }
      const watching = watch()
      return async () => {
        stopped.abort()
        await watching
      }
    },
  }
}
