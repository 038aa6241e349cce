// Site paths as the API names them (`/htdocs/index.php`, `/` the site's home) turned into paths on the node that
// stay inside the site: NUL bytes and `..` that climb out refused, the parent resolved with its links and checked
// to be inside the site, the last component never followed.
//
// The parent is resolved one component at a time, never by realpath: the node resolves as root, and root sees every
// site's files, so a realpath through a link to another site answered "leads out of the site" when the other site's
// file existed and "does not exist" when it did not (an existence oracle the site's own user never had). Here a
// link's target is judged by its text alone: one that leaves the home is refused before anything outside is looked
// at, so the answer depends on nothing outside the home. Each step looks through the directory already reached (its
// descriptor, `/proc/self/fd/<fd>/<name>`), never through a path again, so a folder the site swaps for a link while
// the walk goes on is not followed either.

import { constants } from 'node:fs'
import { type FileHandle, lstat, open, readlink } from 'node:fs/promises'
import { posix, sep } from 'node:path'
import { isRuntimeHomeName } from '../../nodes/node/contract.ts'
import { FileRefusal, refusalOf } from './file-refusal.ts'

/** The most bytes a site path may have. */
export const maxSitePathBytes = 4096

/** A site path checked and normalised: `/` and its segments (none for the root). */
export interface SitePath {
  /** As the API shows it: `/htdocs/index.php`. */
  readonly path: string
  readonly segments: readonly string[]
}

/** `input` as a site path, or a refusal: absolute, no NUL, no control characters, not climbing out with `..`. */
export function sitePathOf(input: string): SitePath {
  if (typeof input !== 'string' || input.length === 0 || !input.startsWith('/'))
    throw new FileRefusal('invalid_path', 'A path starts with / (the site’s home)')
  if (Buffer.byteLength(input) > maxSitePathBytes)
    throw new FileRefusal('invalid_path', `A path has at most ${maxSitePathBytes} bytes`)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL and control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(input))
    throw new FileRefusal('invalid_path', 'A path holds no NUL byte nor control character')
  const segments: string[] = []
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (segments.length === 0) throw new FileRefusal('path_escapes_site', `${input} climbs out of the site`)
      segments.pop()
    } else segments.push(segment)
  }
  const first = segments[0]
  if (segments.length === 1 && first !== undefined && isRuntimeHomeName(first))
    throw new FileRefusal('path_reserved', `/${first} belongs to the node, not to the site`)
  return { path: `/${segments.join('/')}`, segments }
}

/** A site path located on the node. */
export interface Located {
  readonly site: SitePath
  /**
   * Where it really is, as a site path: the parent's links resolved (`/htdocs/up/state.json`, through a link `up`
   * to `..`, is `/state.json`). What the node reserves and the site's layout are judged by it, never by the text.
   */
  readonly resolved: string
  /** The path on the node: the parent's real path, and the last component as given (not followed). */
  readonly absolute: string
  /** The real path of the parent directory (the root itself for `/`). */
  readonly parent: string
  /** The last component; empty for the root. */
  readonly name: string
}

/** Whether `path` is `root` or inside it. */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)
}

/** The most links one path may pass through, as the kernel allows (ELOOP past it). */
const maxLinks = 40

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/**
 * The real path of the directory `segments` (from `root`) leads to, links followed by their text and never out of
 * `root`: a `..` above it, or a link whose target leaves it (an absolute one anywhere but under `root`, a relative
 * one that climbs above it, even to come back), is refused as `path_escapes_site` without looking where it leads.
 */
async function resolveDirectory(
  root: string,
  segments: readonly string[],
  sitePath: string,
): Promise<string> {
  const escapes = () =>
    new FileRefusal('path_escapes_site', `${sitePath} leads out of the site through a symbolic link`)
  /** The directories reached, from the root: their names and open descriptors. */
  const names: string[] = []
  const handles: FileHandle[] = [await open(root, directoryFlags)]
  const pending = [...segments]
  let links = 0
  try {
    while (pending.length > 0) {
      const name = pending.shift() ?? ''
      if (name === '' || name === '.') continue
      if (name === '..') {
        if (names.length === 0) throw escapes()
        names.pop()
        await handles.pop()?.close()
        continue
      }
      const current = handles.at(-1) as FileHandle
      const through = `/proc/self/fd/${current.fd}/${name}`
      let stats: Awaited<ReturnType<typeof lstat>>
      try {
        stats = await lstat(through)
      } catch (error) {
        throw refusalOf(error, sitePath)
      }
      if (stats.isSymbolicLink()) {
        if (++links > maxLinks)
          throw new FileRefusal('link_not_followed', `${sitePath} passes through too many symbolic links`)
        const target = await readlink(through)
        if (target.startsWith('/')) {
          // Judged by its text: under the home it goes on from the home; anywhere else is out, wherever it leads.
          if (target !== root && !target.startsWith(`${root}/`)) throw escapes()
          names.length = 0
          for (const handle of handles.splice(1)) await handle.close()
          pending.unshift(...target.slice(root.length).split('/'))
        } else pending.unshift(...target.split('/'))
        continue
      }
      if (!stats.isDirectory())
        throw new FileRefusal('not_a_directory', `A parent of ${sitePath} is not a directory`)
      try {
        handles.push(await open(through, directoryFlags))
      } catch (error) {
        // Swapped for something else since it was looked at: said as what it is now, never followed.
        throw refusalOf(error, sitePath)
      }
      names.push(name)
    }
    return posix.join(root, ...names)
  } finally {
    for (const handle of handles) await handle.close().catch(() => {})
  }
}

/**
 * Where `site` is under `root` (the site's home, a real path): the parent's links resolved inside the root, so a
 * link to `/etc` or to another site is refused (`path_escapes_site`) the same whether what it names exists or not;
 * the last component is left as it is, so operations act on a link itself, never on what it points to.
 */
export async function locate(root: string, site: SitePath): Promise<Located> {
  if (site.segments.length === 0) return { site, resolved: '/', absolute: root, parent: root, name: '' }
  const name = site.segments.at(-1) ?? ''
  const parent = await resolveDirectory(root, site.segments.slice(0, -1), site.path)
  const resolved = posix.join('/', posix.relative(root, parent), name)
  if (parent === root && isRuntimeHomeName(name))
    throw new FileRefusal(
      'path_reserved',
      `${site.path} is /${name}, which belongs to the node, not to the site`,
    )
  return { site, resolved, absolute: posix.join(parent, name), parent, name }
}
