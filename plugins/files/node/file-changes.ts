// Changes to a site's tree on the node, as the site's user: directories made, paths moved and copied (links as links,
// a link at the destination removed rather than written through), deleted (every path checked first, each one's
// outcome said), and chmodded (never a link, nor through one).

import { randomBytes } from 'node:crypto'
import type { NodeSite } from '../../nodes/node/contract.ts'
import type { FileEntry, FilesRequest } from '../protocol.ts'
import { entryOrNull, statEntry } from './file-entries.ts'
import { FileRefusal } from './file-refusal.ts'
import { refusalOfMessage, runChecked } from './run-checked.ts'
import { type Located, sitePathOf } from './site-paths.ts'
import type { SiteRooms } from './site-room.ts'

/** What the changes need of the service. */
export interface ChangeContext {
  readonly locate: (path: string) => Promise<Located>
  readonly refuseTop: (target: Located) => void
  readonly rooms: SiteRooms
}

const entryAt = (site: NodeSite, target: Located, signal: AbortSignal) =>
  statEntry(site, target.absolute, target.site.path, signal)

/** Makes the directory at `path` (and, with `parents`, its missing ancestors, each located inside the site first). */
export async function makeDirectory(
  context: ChangeContext,
  site: NodeSite,
  path: string,
  parents: boolean,
  signal: AbortSignal,
): Promise<FileEntry> {
  const wanted = sitePathOf(path)
  if (parents) {
    for (let depth = 1; depth < wanted.segments.length; depth++) {
      const ancestor = await context.locate(`/${wanted.segments.slice(0, depth).join('/')}`)
      const found = await entryOrNull(site, ancestor.absolute, ancestor.site.path, signal)
      if (!found) await runChecked(site, ['mkdir', '--', ancestor.absolute], ancestor.site.path, signal)
      else if (found.type !== 'directory')
        throw new FileRefusal('not_a_directory', `${ancestor.site.path} is not a directory`)
    }
  }
  const target = await context.locate(path)
  context.refuseTop(target)
  const existing = await entryOrNull(site, target.absolute, target.site.path, signal)
  if (existing?.type === 'directory' && parents) return existing
  if (existing) throw new FileRefusal('file_exists', `${target.site.path} exists already`)
  await runChecked(site, ['mkdir', '--', target.absolute], target.site.path, signal)
  return entryAt(site, target, signal)
}

/** Moves or copies `from` to `to` (the whole new path). */
export async function moveOrCopy(
  context: ChangeContext,
  site: NodeSite,
  request: Extract<FilesRequest, { op: 'move' | 'copy' }>,
  signal: AbortSignal,
): Promise<FileEntry> {
  const from = await context.locate(request.from)
  const to = await context.locate(request.to)
  if (request.op === 'move') context.refuseTop(from)
  context.refuseTop(to)
  const source = await entryAt(site, from, signal)
  if (to.resolved === from.resolved || to.resolved.startsWith(`${from.resolved}/`))
    throw new FileRefusal('invalid_path', `${to.site.path} is ${from.site.path} or inside it`)
  const existing = await entryOrNull(site, to.absolute, to.site.path, signal)
  if (existing) {
    if (!request.overwrite) throw new FileRefusal('file_exists', `${to.site.path} exists already`)
    if (existing.type === 'directory')
      throw new FileRefusal('is_a_directory', `${to.site.path} is a directory, which is not replaced`)
  }
  // Within one filesystem a move is a rename. Across two (a site's own filesystem and another mounted in it) mv
  // would copy onto `to` and leave half a file when the disk fills: such a move is a copy put in place whole, then
  // the source removed.
  const renames =
    request.op === 'move' &&
    (await deviceOf(site, from.parent, from.site.path, signal)) ===
      (await deviceOf(site, to.parent, to.site.path, signal))
  if (renames)
    await runChecked(site, ['mv', '-T', '-f', '--', from.absolute, to.absolute], to.site.path, signal)
  else {
    if (request.op === 'copy' && (source.type === 'directory' || source.type === 'file'))
      await context.rooms.take(
        site,
        source.type === 'file' ? source.size : await bytesUnder(site, from, signal),
        signal,
      )
    // Copied beside `to` first, put in place by a rename once whole: a copy the disk stops halfway (the site's quota
    // reached) leaves neither half a copy nor a loss of what was at `to`. The rename replaces a file or a link at
    // `to` itself, never writing through a link.
    const staging = `${to.parent}/.plinth-copy-${randomBytes(8).toString('hex')}`
    try {
      // -a keeps modes and times and copies links as links (never what they point to); -T never copies into it.
      await runChecked(
        site,
        ['cp', '-a', '-T', '--no-dereference', '--', from.absolute, staging],
        to.site.path,
        signal,
      )
      // A folder does not replace a file by a rename: the file goes once the copy is whole.
      if (existing && source.type === 'directory')
        await runChecked(site, ['rm', '-f', '--', to.absolute], to.site.path, signal)
      await runChecked(site, ['mv', '-T', '-f', '--', staging, to.absolute], to.site.path, signal)
    } finally {
      await site.run(['rm', '-r', '-f', '--one-file-system', '--', staging], {}, AbortSignal.timeout(300_000))
    }
    if (request.op === 'move')
      await runChecked(
        site,
        ['rm', '-r', '-f', '--one-file-system', '--', from.absolute],
        from.site.path,
        signal,
      )
  }
  return entryAt(site, to, signal)
}

/** The device of the filesystem holding the directory `absolute`, as the site's user sees it. */
async function deviceOf(
  site: NodeSite,
  absolute: string,
  sitePath: string,
  signal: AbortSignal,
): Promise<string> {
  const result = await site.run(['find', '-P', absolute, '-maxdepth', '0', '-printf', '%D'], {}, signal)
  if (result.code === 0) return result.stdout
  throw (
    refusalOfMessage(result.stderr, sitePath) ??
    new Error(`Looking at ${sitePath} failed: ${result.stderr.trim().slice(0, 300)}`)
  )
}

/** The bytes of the files under a directory, as the site's user counts them. */
export async function bytesUnder(site: NodeSite, target: Located, signal: AbortSignal): Promise<number> {
  const result = await site.run(['du', '-s', '-b', '-P', '--', target.absolute], {}, signal)
  return Number(result.stdout.split('\t')[0]) || 0
}

/** What a delete came to: each path's outcome. */
export interface Deleted {
  readonly removed: string[]
  readonly missing: string[]
  /** Paths that could not be deleted (wholly or in part), with why. */
  readonly refused: { readonly path: string; readonly code: string; readonly message: string }[]
}

/** Deletes each path (every one located and checked before any is touched). */
export async function remove(
  context: ChangeContext,
  site: NodeSite,
  paths: readonly string[],
  signal: AbortSignal,
): Promise<Deleted> {
  const targets: Located[] = []
  for (const path of paths) {
    const target = await context.locate(path)
    context.refuseTop(target)
    targets.push(target)
  }
  const outcome: Deleted = { removed: [], missing: [], refused: [] }
  for (const target of targets) {
    if (!(await entryOrNull(site, target.absolute, target.site.path, signal))) {
      outcome.missing.push(target.site.path)
      continue
    }
    try {
      // rm never follows a link (it removes the link) and, with --one-file-system, never leaves the site's disk.
      await runChecked(
        site,
        ['rm', '-r', '-f', '--one-file-system', '--', target.absolute],
        target.site.path,
        signal,
      )
      outcome.removed.push(target.site.path)
    } catch (error) {
      if (!(error instanceof FileRefusal)) throw error
      outcome.refused.push({ path: target.site.path, code: error.code, message: error.message })
    }
  }
  // What was freed is measured again at the next write.
  if (outcome.removed.length > 0) context.rooms.forget(site)
  return outcome
}

/** Sets the mode of a file or directory. */
export async function changeMode(
  context: ChangeContext,
  site: NodeSite,
  path: string,
  mode: string,
  signal: AbortSignal,
): Promise<FileEntry> {
  if (!/^0?[0-7]{3}$/.test(mode))
    throw new FileRefusal(
      'invalid_mode',
      'A mode is three octal digits (0644, 755); no setuid, setgid or sticky bit',
    )
  const target = await context.locate(path)
  context.refuseTop(target)
  const entry = await entryAt(site, target, signal)
  // chmod would change what a link points to: never.
  if (entry.type === 'link')
    throw new FileRefusal(
      'link_not_followed',
      `${entry.path} is a symbolic link; its target's mode is not changed`,
      { target: entry.target },
    )
  await runChecked(site, ['chmod', mode.padStart(4, '0'), '--', target.absolute], target.site.path, signal)
  return entryAt(site, target, signal)
}
