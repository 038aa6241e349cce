// The `files` node service: a site's files listed, read, written, moved, copied, deleted and chmodded on its node,
// every path checked and located inside the site (links in parents resolved and checked, the last component never
// followed), and every program run as the site's Unix user, so the kernel refuses what the checks might miss.

import { lstat } from 'node:fs/promises'
import type { NodeService, NodeSite } from '../../nodes/contract.ts'
import {
  type FileEntry,
  type FileListing,
  type FilePart,
  type FilesRequest,
  filesService,
  partBytes,
} from '../protocol.ts'
import { type ArchiveProgress, archive, extract } from './archives.ts'
import { entryOrNull, listEntries, statEntry } from './file-entries.ts'
import { FileRefusal } from './file-refusal.ts'
import { readPart, uploadFile, uploadsDir, writePart } from './file-transfer.ts'
import { type Located, locate, sitePathOf } from './site-paths.ts'

/** The folders the runtime makes in every site's home: their contents are the site's, not the folders. */
const topFolders = new Set(['/htdocs', '/logs', '/tmp'])
/** The runtime's own files in a site's home, never listed. */
const hiddenAtTop = new Set(['state.json'])

/** A site path given by the panel, located under the site's home. */
const located = (site: NodeSite, path: string) => locate(site.home, sitePathOf(path))

/** Runs a coreutils program as the site's user; its complaint becomes the refusal it names. */
async function runChecked(site: NodeSite, argv: string[], sitePath: string, signal: AbortSignal) {
  const result = await site.run(argv, { timeoutMs: 300_000 }, signal)
  if (result.code === 0) return
  const message = result.stderr
  if (/Permission denied|Operation not permitted/.test(message))
    throw new FileRefusal('permission_denied', `The site's user may not do that to ${sitePath}`)
  if (/No such file/.test(message)) throw new FileRefusal('file_not_found', `${sitePath} does not exist`)
  if (/File exists/.test(message)) throw new FileRefusal('file_exists', `${sitePath} exists already`)
  if (/Not a directory/.test(message))
    throw new FileRefusal('not_a_directory', `A parent of ${sitePath} is not a directory`)
  if (/Directory not empty|cannot overwrite directory|Is a directory/.test(message))
    throw new FileRefusal('is_a_directory', `${sitePath} is a directory`)
  if (/subdirectory of itself|into itself/.test(message))
    throw new FileRefusal('invalid_path', `${sitePath} cannot go inside itself`)
  if (/No space left|Disk quota exceeded/.test(message))
    throw new FileRefusal('disk_quota_exceeded', 'The node has no room for that')
  throw new Error(`${argv[0]} on ${sitePath} failed: ${message.trim().slice(0, 500)}`)
}

/** Refuses changes to the home itself and to its top folders (their contents may change). */
function refuseTop(target: Located): void {
  if (target.site.path === '/' || topFolders.has(target.site.path))
    throw new FileRefusal(
      'top_folder',
      `${target.site.path} belongs to the site's layout; change what is in it`,
    )
}

/** The entry at a located path, refused when there is none. */
const entryAt = (site: NodeSite, target: Located, signal: AbortSignal) =>
  statEntry(site, target.absolute, target.site.path, signal)

/** Whether the bytes a site's home takes, plus `adding`, stay within its quota. */
async function checkQuota(site: NodeSite, adding: number, signal: AbortSignal): Promise<void> {
  if (site.quotaBytes === null || adding <= 0) return
  const used = await site.usedBytes(signal)
  if (used + adding > site.quotaBytes)
    throw new FileRefusal('disk_quota_exceeded', 'The site’s disk quota has no room for that', {
      quotaBytes: site.quotaBytes,
      usedBytes: used,
      neededBytes: adding,
    })
}

async function list(site: NodeSite, path: string, after: string | null, limit: number, signal: AbortSignal) {
  const target = await located(site, path)
  const entry = await entryAt(site, target, signal)
  if (entry.type === 'link')
    throw new FileRefusal('link_not_followed', `${entry.path} is a symbolic link, which is not followed`, {
      target: entry.target,
    })
  if (entry.type !== 'directory') throw new FileRefusal('not_a_directory', `${entry.path} is not a directory`)
  const all = (await listEntries(site, target.absolute, target.site.path, signal)).filter(
    (candidate) => !(target.site.path === '/' && hiddenAtTop.has(candidate.name)),
  )
  const from = after === null ? all : all.filter((candidate) => candidate.name > after)
  const page = from.slice(0, limit)
  const listing: FileListing = {
    entries: page,
    next: from.length > limit ? (page.at(-1)?.name ?? null) : null,
  }
  return listing
}

async function read(site: NodeSite, path: string, offset: number, length: number, signal: AbortSignal) {
  const target = await located(site, path)
  const entry = await entryAt(site, target, signal)
  if (entry.type === 'link')
    throw new FileRefusal('link_not_followed', `${entry.path} is a symbolic link, which is not followed`, {
      target: entry.target,
    })
  if (entry.type === 'directory') throw new FileRefusal('is_a_directory', `${entry.path} is a directory`)
  if (entry.type !== 'file') throw new FileRefusal('not_a_file', `${entry.path} is not a regular file`)
  const wanted = Math.max(0, Math.min(length, partBytes, entry.size - offset))
  const bytes =
    wanted === 0 ? new Uint8Array() : await readPart(site, target.absolute, path, offset, wanted, signal)
  const part: FilePart = { entry, data: Buffer.from(bytes).toString('base64') }
  return part
}

async function commitUpload(
  site: NodeSite,
  request: Extract<FilesRequest, { op: 'upload-commit' }>,
  signal: AbortSignal,
): Promise<FileEntry> {
  const file = uploadFile(site, request.upload)
  const target = await located(site, request.path)
  refuseTop(target)
  const written = await lstat(file).catch(() => null)
  if (!written?.isFile() || written.size !== request.size)
    throw new FileRefusal(
      'upload_incomplete',
      `The upload has ${written?.size ?? 0} of its ${request.size} bytes: send the missing parts again`,
    )
  const current = await entryOrNull(site, target.absolute, target.site.path, signal)
  if (current && current.type !== 'file' && current.type !== 'link')
    throw new FileRefusal('is_a_directory', `${target.site.path} is a directory`)
  if (request.ifNoneMatch === '*' && current)
    throw new FileRefusal('etag_mismatch', `${target.site.path} exists already`, { etag: current.etag })
  if (request.ifMatch !== null && (!current || (request.ifMatch !== '*' && current.etag !== request.ifMatch)))
    throw new FileRefusal('etag_mismatch', `${target.site.path} changed since it was read`, {
      etag: current?.etag ?? null,
    })
  // A replaced file keeps its permissions.
  if (current?.type === 'file')
    await runChecked(site, ['chmod', current.mode, '--', file], request.path, signal)
  await runChecked(site, ['mv', '-T', '-f', '--', file, target.absolute], request.path, signal)
  return entryAt(site, target, signal)
}

async function makeDirectory(site: NodeSite, path: string, parents: boolean, signal: AbortSignal) {
  const wanted = sitePathOf(path)
  if (parents) {
    // Each missing ancestor made in turn, each located inside the site before it is made.
    for (let depth = 1; depth < wanted.segments.length; depth++) {
      const ancestor = await located(site, `/${wanted.segments.slice(0, depth).join('/')}`)
      const found = await entryOrNull(site, ancestor.absolute, ancestor.site.path, signal)
      if (!found) await runChecked(site, ['mkdir', '--', ancestor.absolute], ancestor.site.path, signal)
      else if (found.type !== 'directory' && found.type !== 'link')
        throw new FileRefusal('not_a_directory', `${ancestor.site.path} is not a directory`)
    }
  }
  const target = await located(site, path)
  refuseTop(target)
  const existing = await entryOrNull(site, target.absolute, target.site.path, signal)
  if (existing?.type === 'directory' && parents) return existing
  if (existing) throw new FileRefusal('file_exists', `${target.site.path} exists already`)
  await runChecked(site, ['mkdir', '--', target.absolute], target.site.path, signal)
  return entryAt(site, target, signal)
}

async function moveOrCopy(
  site: NodeSite,
  request: Extract<FilesRequest, { op: 'move' | 'copy' }>,
  signal: AbortSignal,
): Promise<FileEntry> {
  const from = await located(site, request.from)
  const to = await located(site, request.to)
  if (request.op === 'move') refuseTop(from)
  refuseTop(to)
  const source = await entryAt(site, from, signal)
  if (to.site.path === from.site.path || to.site.path.startsWith(`${from.site.path}/`))
    throw new FileRefusal('invalid_path', `${to.site.path} is ${from.site.path} or inside it`)
  const existing = await entryOrNull(site, to.absolute, to.site.path, signal)
  if (existing) {
    if (!request.overwrite) throw new FileRefusal('file_exists', `${to.site.path} exists already`)
    if (existing.type === 'directory')
      throw new FileRefusal('is_a_directory', `${to.site.path} is a directory, which is not replaced`)
  }
  if (request.op === 'copy') {
    if (source.type === 'directory' || source.type === 'file')
      await checkQuota(
        site,
        source.type === 'file' ? source.size : await bytesUnder(site, from, signal),
        signal,
      )
    // -a keeps modes and times and copies links as links (never what they point to); -T never copies into `to`.
    await runChecked(
      site,
      ['cp', '-a', '-T', '--no-dereference', '--', from.absolute, to.absolute],
      to.site.path,
      signal,
    )
  } else await runChecked(site, ['mv', '-T', '-f', '--', from.absolute, to.absolute], to.site.path, signal)
  return entryAt(site, to, signal)
}

/** The bytes of the files under a directory, as the site's user counts them. */
async function bytesUnder(site: NodeSite, target: Located, signal: AbortSignal): Promise<number> {
  const result = await site.run(['du', '-s', '-b', '-P', '--', target.absolute], {}, signal)
  return Number(result.stdout.split('\t')[0]) || 0
}

async function remove(site: NodeSite, paths: readonly string[], signal: AbortSignal) {
  // All checked before any is removed: one bad path removes nothing.
  const targets: Located[] = []
  for (const path of paths) {
    const target = await located(site, path)
    refuseTop(target)
    targets.push(target)
  }
  const removed: string[] = []
  const missing: string[] = []
  for (const target of targets) {
    if (!(await entryOrNull(site, target.absolute, target.site.path, signal))) {
      missing.push(target.site.path)
      continue
    }
    // rm never follows a link (it removes the link) and, with --one-file-system, never leaves the site's disk.
    await runChecked(
      site,
      ['rm', '-r', '-f', '--one-file-system', '--', target.absolute],
      target.site.path,
      signal,
    )
    removed.push(target.site.path)
  }
  return { removed, missing }
}

async function changeMode(site: NodeSite, path: string, mode: string, signal: AbortSignal) {
  if (!/^0?[0-7]{3}$/.test(mode))
    throw new FileRefusal(
      'invalid_mode',
      'A mode is three octal digits (0644, 755); no setuid, setgid or sticky bit',
    )
  const target = await located(site, path)
  refuseTop(target)
  const entry = await entryAt(site, target, signal)
  // chmod would change what a link points to: never.
  if (entry.type === 'link')
    throw new FileRefusal(
      'link_not_followed',
      `${entry.path} is a symbolic link; its target's mode is not changed`,
      {
        target: entry.target,
      },
    )
  await runChecked(site, ['chmod', mode.padStart(4, '0'), '--', target.absolute], target.site.path, signal)
  return entryAt(site, target, signal)
}

/** Refuses changes to a suspended site's files (reads too: a suspended site's files wait with it). */
function requireActive(site: NodeSite): void {
  if (site.state !== 'active')
    throw new FileRefusal(
      'permission_denied',
      'The site is suspended: its files wait until it is active again',
      {
        suspended: true,
      },
    )
}

/** A task id: the job an archive or extraction runs under. */
function taskOf(task: string): string {
  if (!/^job_[0-9A-Za-z]{10,40}$/.test(task)) throw new FileRefusal('invalid_path', 'Not a task id')
  return task
}

/** Refuses, and removes `made`, when the site's home now takes more than its quota. */
async function checkQuotaAfter(site: NodeSite, made: Located, signal: AbortSignal): Promise<void> {
  if (site.quotaBytes === null) return
  const used = await site.usedBytes(signal)
  if (used <= site.quotaBytes) return
  await site.run(['rm', '-r', '-f', '--one-file-system', '--', made.absolute], {}, signal)
  throw new FileRefusal('disk_quota_exceeded', 'The site’s disk quota has no room for that', {
    quotaBytes: site.quotaBytes,
    usedBytes: used,
  })
}

/** The files service. */
export function filesNodeService(): NodeService {
  /** What each upload under way found the site's home took at its first part (less what it wrote since). */
  const usedAtStart = new Map<string, number>()
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

  return {
    name: filesService,
    async handle(site, raw, signal) {
      requireActive(site)
      const request = raw as FilesRequest
      switch (request.op) {
        case 'list':
          return list(site, request.path, request.after, Math.min(Math.max(request.limit, 1), 1000), signal)
        case 'stat':
          return entryAt(site, await located(site, request.path), signal)
        case 'read':
          return read(site, request.path, request.offset, request.length, signal)
        case 'upload-part': {
          const data = Buffer.from(request.data, 'base64')
          if (data.byteLength > partBytes) throw new FileRefusal('file_too_large', 'A part is at most 4 MiB')
          // Counted part by part (an upload stops at the quota, not after it filled the disk): the home is walked
          // once, at the first part, and the upload's own bytes added to that since.
          if (site.quotaBytes !== null) {
            let used = request.offset === 0 ? undefined : usedAtStart.get(request.upload)
            if (used === undefined) {
              used = (await site.usedBytes(signal)) - request.offset
              usedAtStart.set(request.upload, used)
            }
            const needed = request.offset + data.byteLength
            if (used + needed > site.quotaBytes) {
              usedAtStart.delete(request.upload)
              throw new FileRefusal('disk_quota_exceeded', 'The site’s disk quota has no room for that', {
                quotaBytes: site.quotaBytes,
                usedBytes: used,
                neededBytes: needed,
              })
            }
          }
          await writePart(site, request.upload, request.offset, data, signal)
          return { received: request.offset + data.byteLength }
        }
        case 'upload-commit':
          usedAtStart.delete(request.upload)
          return commitUpload(site, request, signal)
        case 'upload-abort':
          usedAtStart.delete(request.upload)
          await site.run(['rm', '-f', '--', uploadFile(site, request.upload)], {}, signal)
          return { aborted: true }
        case 'mkdir':
          return makeDirectory(site, request.path, request.parents, signal)
        case 'move':
        case 'copy':
          return moveOrCopy(site, request, signal)
        case 'delete':
          return remove(site, request.paths, signal)
        case 'chmod':
          return changeMode(site, request.path, request.mode, signal)
        case 'archive':
          return withProgress(request.task, async (progress) => {
            const sources = await Promise.all(request.paths.map((path) => located(site, path)))
            for (const source of sources) refuseTop(source)
            const to = await located(site, request.to)
            refuseTop(to)
            const partial = `${uploadsDir(site)}/${request.task}.part`
            const made = await archive(
              site,
              { sources, to, overwrite: request.overwrite, partial },
              progress,
              signal,
            )
            await checkQuotaAfter(site, to, signal)
            return { ...made, file: await entryAt(site, to, signal) }
          })
        case 'extract':
          return withProgress(request.task, async (progress) => {
            const from = await located(site, request.path)
            const to = await located(site, request.to)
            refuseTop(to)
            const entry = await entryAt(site, from, signal)
            if (entry.type !== 'file')
              throw new FileRefusal('not_a_file', `${entry.path} is not a regular file`)
            const staging = `${uploadsDir(site)}/extract-${request.task}`
            const checkRoom = (bytes: number) => checkQuota(site, bytes, signal)
            try {
              return await extract(
                site,
                { archive: from, to, overwrite: request.overwrite, staging, checkRoom },
                progress,
                signal,
              )
            } finally {
              await site.run(
                ['rm', '-r', '-f', '--one-file-system', '--', staging],
                {},
                AbortSignal.timeout(300_000),
              )
            }
          })
        case 'progress': {
          const progress = tasks.get(request.task)
          return progress ? { done: progress.done, total: progress.total } : null
        }
        default:
          throw new FileRefusal('invalid_path', 'The files service does not know that operation')
      }
    },
  }
}
