// The `files` node service: a site's files listed, read, written, moved, copied, deleted, chmodded and archived on
// its node, every path checked and located inside the site (links in parents resolved and checked, the last
// component never followed, the node's files and the site's layout judged by where a path really leads), and every
// program run as the site's Unix user, so the kernel refuses what the checks might miss.

import { isRuntimeHomeName, NodeRefusal, type NodeService, type NodeSite } from '../../nodes/node/contract.ts'
import {
  type FileEntry,
  type FileListing,
  type FilePart,
  type FilesRequest,
  filesService,
  partBytes,
} from '../protocol.ts'
import { type ArchiveProgress, archive, extract } from './archives.ts'
import { changeMode, makeDirectory, moveOrCopy, remove } from './file-changes.ts'
import { listEntries, statEntry } from './file-entries.ts'
import { FileRefusal } from './file-refusal.ts'
import { readPart } from './file-transfer.ts'
import { type Located, locate, sitePathOf } from './site-paths.ts'
import { siteRooms } from './site-room.ts'
import { abortUpload, commitUpload, keyedQueue, uploadPart } from './uploads.ts'

/** The folders the runtime makes in every site's home: their contents are the site's, not the folders. */
const topFolders = new Set(['/htdocs', '/logs', '/tmp'])

/** Refuses changes to the home itself and to its top folders (their contents may change), wherever a path leads. */
function refuseTop(target: Located): void {
  if (target.resolved === '/' || topFolders.has(target.resolved))
    throw new FileRefusal(
      'top_folder',
      `${target.site.path} is the site's ${target.resolved}: change what is in it`,
    )
}

/** Refuses a link, pointing at `target` in the answer. */
function refuseLink(entry: FileEntry, doing: string): void {
  if (entry.type === 'link')
    throw new FileRefusal('link_not_followed', `${entry.path} is a symbolic link, which is not ${doing}`, {
      target: entry.target,
    })
}

const entryAt = (site: NodeSite, target: Located, signal: AbortSignal) =>
  statEntry(site, target.absolute, target.site.path, signal)

/** A task id: the job an archive or extraction runs under. */
function taskOf(task: string): string {
  if (!/^job_[0-9A-Za-z]{10,40}$/.test(task)) throw new FileRefusal('invalid_path', 'Not a task id')
  return task
}

/** The files service. */
export function filesNodeService(): NodeService {
  const rooms = siteRooms()
  const serialized = keyedQueue()
  /** Archives and extractions under way, by task. */
  const tasks = new Map<string, ArchiveProgress>()

  /** Runs an archive task, its progress readable meanwhile. */
  async function withProgress<T>(task: string, work: (progress: ArchiveProgress) => Promise<T>): Promise<T> {
    const progress: ArchiveProgress = { done: 0, total: 0 }
    tasks.set(taskOf(task), progress)
    try {
      return await work(progress)
    } finally {
      tasks.delete(task)
    }
  }

  async function list(
    site: NodeSite,
    target: Located,
    after: string | null,
    limit: number,
    signal: AbortSignal,
  ) {
    const entry = await entryAt(site, target, signal)
    refuseLink(entry, 'listed through')
    if (entry.type !== 'directory')
      throw new FileRefusal('not_a_directory', `${entry.path} is not a directory`)
    const all = (await listEntries(site, target.absolute, target.site.path, signal)).filter(
      (candidate) => !(target.resolved === '/' && isRuntimeHomeName(candidate.name)),
    )
    const from = after === null ? all : all.filter((candidate) => candidate.name > after)
    const page = from.slice(0, limit)
    const listing: FileListing = {
      entries: page,
      next: from.length > limit ? (page.at(-1)?.name ?? null) : null,
    }
    return listing
  }

  async function read(site: NodeSite, target: Located, offset: number, length: number, signal: AbortSignal) {
    const entry = await entryAt(site, target, signal)
    refuseLink(entry, 'read through')
    if (entry.type === 'directory') throw new FileRefusal('is_a_directory', `${entry.path} is a directory`)
    if (entry.type !== 'file') throw new FileRefusal('not_a_file', `${entry.path} is not a regular file`)
    const wanted = Math.max(0, Math.min(length, partBytes, entry.size - offset))
    // Opened even for no bytes: a file its user cannot read is refused before an answer starts.
    const bytes = await readPart(site, target.absolute, target.site.path, offset, wanted, signal)
    const part: FilePart = { entry, data: Buffer.from(bytes).toString('base64') }
    return part
  }

  async function handle(site: NodeSite, request: FilesRequest, signal: AbortSignal): Promise<unknown> {
    const located = (path: string) => locate(site.home, sitePathOf(path))
    const changes = { locate: located, refuseTop, rooms }
    const uploads = { rooms, serialized, refuseTop }
    switch (request.op) {
      case 'list':
        return list(
          site,
          await located(request.path),
          request.after,
          Math.min(Math.max(request.limit, 1), 1000),
          signal,
        )
      case 'stat':
        return entryAt(site, await located(request.path), signal)
      case 'read':
        return read(site, await located(request.path), request.offset, request.length, signal)
      case 'upload-part':
        return uploadPart(uploads, site, await located(request.path), request, signal)
      case 'upload-commit':
        return commitUpload(uploads, site, await located(request.path), request, signal)
      case 'upload-abort':
        return abortUpload(uploads, site, await located(request.path), request.upload, signal)
      case 'mkdir':
        return makeDirectory(changes, site, request.path, request.parents, signal)
      case 'move':
      case 'copy':
        return moveOrCopy(changes, site, request, signal)
      case 'delete':
        return remove(changes, site, request.paths, signal)
      case 'chmod':
        return changeMode(changes, site, request.path, request.mode, signal)
      case 'archive':
        return withProgress(request.task, async (progress) => {
          const sources = await Promise.all(request.paths.map(located))
          for (const source of sources) refuseTop(source)
          const to = await located(request.to)
          refuseTop(to)
          const made = await archive(
            site,
            { sources, to, overwrite: request.overwrite, task: request.task },
            progress,
            signal,
          )
          const file = await entryAt(site, to, signal)
          try {
            await rooms.take(site, file.size, signal)
          } catch (error) {
            await site.run(['rm', '-f', '--', to.absolute], {}, AbortSignal.timeout(60_000))
            throw error
          }
          return { ...made, file }
        })
      case 'extract':
        return withProgress(request.task, async (progress) => {
          const from = await located(request.path)
          const to = await located(request.to)
          // Into `/htdocs` or `/tmp` themselves is allowed (their contents change); never into `/` or `/logs`.
          if (to.resolved === '/' || to.resolved === '/logs')
            throw new FileRefusal(
              'top_folder',
              `${to.site.path} is the site's ${to.resolved}: extract into a folder in it`,
            )
          const entry = await entryAt(site, from, signal)
          refuseLink(entry, 'read through')
          if (entry.type !== 'file')
            throw new FileRefusal('not_a_file', `${entry.path} is not a regular file`)
          return extract(
            site,
            {
              archive: from,
              to,
              overwrite: request.overwrite,
              task: request.task,
              allowance: () => rooms.allowance(site, signal),
              take: (bytes) => rooms.take(site, bytes, signal),
            },
            progress,
            signal,
          )
        })
      case 'progress': {
        const progress = tasks.get(request.task)
        return progress ? { done: progress.done, total: progress.total } : null
      }
      default:
        throw new FileRefusal('invalid_path', 'The files service does not know that operation')
    }
  }

  return {
    name: filesService,
    async handle(site, raw, signal) {
      // A suspended site's files wait with it (reads too).
      if (site.state !== 'active')
        throw new NodeRefusal(
          'site_suspended',
          'The site is suspended: its files wait until it is active again',
        )
      try {
        return await handle(site, raw as FilesRequest, signal)
      } catch (error) {
        // The disk was fuller than counted (the kernel stopped a write, or something else wrote): counted afresh.
        if (error instanceof FileRefusal && error.code === 'disk_quota_exceeded') rooms.forget(site)
        if (error instanceof NodeRefusal || signal.aborted) throw error
        // A failure of the node's own (a tool missing, a disk error): said without the node's paths.
        throw new NodeRefusal('file_operation_failed', 'The node could not carry out the file operation', {
          reason: String((error as Error)?.message ?? error)
            .replaceAll(site.home, '<site>')
            .slice(0, 300),
        })
      }
    },
  }
}
