// Uploads on the node: parts written beside the file they become, the site's room taken part by part (shared with
// its other writes), and the file put in place by a rename that checks the entity tag first, one commit at a time
// per site, so two saves with the same `If-Match` cannot both win.

import type { NodeSite } from '../../nodes/node/contract.ts'
import { ifMatchHolds } from '../entity-tags.ts'
import { type FileEntry, type FilesRequest, partBytes } from '../protocol.ts'
import { entryOrNull, statEntry } from './file-entries.ts'
import { FileRefusal } from './file-refusal.ts'
import { uploadFile, writePart } from './file-transfer.ts'
import { runChecked } from './run-checked.ts'
import type { Located } from './site-paths.ts'
import type { SiteRooms } from './site-room.ts'

/** Runs `task` after the earlier tasks of the same key (in this process: the node's one runtime). */
export function keyedQueue() {
  const tails = new Map<string, Promise<unknown>>()
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve()
    const next = previous.catch(() => {}).then(task)
    tails.set(key, next)
    void next
      .finally(() => {
        if (tails.get(key) === next) tails.delete(key)
      })
      .catch(() => {})
    return next
  }
}

/** What the uploads need of the service. */
export interface UploadContext {
  readonly rooms: SiteRooms
  /** One commit at a time per site. */
  readonly serialized: <T>(key: string, task: () => Promise<T>) => Promise<T>
  /** Refuses a change to the site's home or its top folders. */
  readonly refuseTop: (target: Located) => void
}

/** Refuses writing content at `target` unless it is a file or nothing: a link is never written through or replaced. */
export function checkWritable(current: FileEntry | null): void {
  if (!current) return
  if (current.type === 'directory') throw new FileRefusal('is_a_directory', `${current.path} is a directory`)
  if (current.type === 'link')
    throw new FileRefusal(
      'link_not_followed',
      `${current.path} is a symbolic link, which is not written through`,
      {
        target: current.target,
      },
    )
  if (current.type !== 'file') throw new FileRefusal('not_a_file', `${current.path} is not a regular file`)
}

/** Writes one part of an upload to `target`. */
export async function uploadPart(
  context: UploadContext,
  site: NodeSite,
  target: Located,
  request: Extract<FilesRequest, { op: 'upload-part' }>,
  signal: AbortSignal,
): Promise<{ received: number }> {
  context.refuseTop(target)
  const data = Buffer.from(request.data, 'base64')
  if (data.byteLength > partBytes) throw new FileRefusal('file_too_large', 'A part is at most 4 MiB')
  // Counted part by part against the room the site's other writes share: an upload stops at the quota.
  await context.rooms.take(site, data.byteLength, signal, request.upload)
  const file = uploadFile(target, request.upload)
  try {
    await writePart(site, file, target.site.path, request.offset, data, signal)
  } catch (error) {
    // What the part wrote before the disk filled goes: the upload holds the bytes it received, no more.
    if (error instanceof FileRefusal && error.code === 'disk_quota_exceeded')
      await site.run(
        request.offset === 0
          ? ['rm', '-f', '--', file]
          : ['truncate', '--no-create', '-s', String(request.offset), '--', file],
        {},
        AbortSignal.timeout(60_000),
      )
    throw error
  }
  return { received: request.offset + data.byteLength }
}

/** Puts a whole upload in place at `target`, its preconditions checked in the same turn as the rename. */
export function commitUpload(
  context: UploadContext,
  site: NodeSite,
  target: Located,
  request: Extract<FilesRequest, { op: 'upload-commit' }>,
  signal: AbortSignal,
): Promise<FileEntry> {
  context.refuseTop(target)
  const file = uploadFile(target, request.upload)
  return context.serialized(`${site.id}:commit`, async () => {
    // Looked at as the site's user, like everything in its home.
    const written = await entryOrNull(site, file, target.site.path, signal)
    if (written?.type !== 'file' || written.size !== request.size)
      throw new FileRefusal(
        'upload_incomplete',
        `The upload has ${written?.size ?? 0} of its ${request.size} bytes: send the missing parts again`,
      )
    const current = await entryOrNull(site, target.absolute, target.site.path, signal)
    checkWritable(current)
    if (request.ifNoneMatch === '*' && current)
      throw new FileRefusal('etag_mismatch', `${target.site.path} exists already`, { etag: current.etag })
    if (request.ifMatch !== null && !ifMatchHolds(request.ifMatch, current?.etag ?? null))
      throw new FileRefusal('etag_mismatch', `${target.site.path} changed since it was read`, {
        etag: current?.etag ?? null,
      })
    // A replaced file keeps its permissions.
    if (current) await runChecked(site, ['chmod', current.mode, '--', file], target.site.path, signal)
    await runChecked(site, ['mv', '-T', '-f', '--', file, target.absolute], target.site.path, signal)
    context.rooms.settle(site, request.upload, current?.size ?? 0)
    return statEntry(site, target.absolute, target.site.path, signal)
  })
}

/** Removes an upload's bytes, giving back the room they took; done when there are none. */
export async function abortUpload(
  context: UploadContext,
  site: NodeSite,
  target: Located,
  upload: string,
  signal: AbortSignal,
) {
  await site.run(['rm', '-f', '--', uploadFile(target, upload)], {}, signal)
  context.rooms.giveBack(site, upload)
  return { aborted: true }
}
