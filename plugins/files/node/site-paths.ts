// Site paths as the API names them (`/htdocs/index.php`, `/` the site's home) turned into paths on the node that
// stay inside the site: NUL bytes and `..` that climb out refused, the parent resolved with its links and checked
// to be inside the site, the last component never followed.

import { lstat, realpath } from 'node:fs/promises'
import { posix, sep } from 'node:path'
import { FileRefusal, refusalOf } from './file-refusal.ts'

/** The most bytes a site path may have. */
export const maxSitePathBytes = 4096

/** Names at the top of the site's home that belong to the runtime, not the customer. */
const reservedNames = new Set(['state.json'])

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
  if (segments.length === 1 && first !== undefined && reservedNames.has(first))
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

/**
 * Where `site` is under `root` (the site's home, a real path): the parent's links resolved and the result checked
 * to be inside the root, so a link to `/etc` or to another site is refused (`path_escapes_site`); the last
 * component is left as it is, so operations act on a link itself, never on what it points to.
 */
export async function locate(root: string, site: SitePath): Promise<Located> {
  if (site.segments.length === 0) return { site, resolved: '/', absolute: root, parent: root, name: '' }
  const parentSegments = site.segments.slice(0, -1)
  const name = site.segments.at(-1) ?? ''
  let parent: string
  try {
    parent = await realpath(posix.join(root, ...parentSegments))
  } catch (error) {
    throw refusalOf(error, site.path)
  }
  if (!isInside(root, parent))
    throw new FileRefusal('path_escapes_site', `${site.path} leads out of the site through a symbolic link`)
  const parentStat = await lstat(parent)
  if (!parentStat.isDirectory())
    throw new FileRefusal('not_a_directory', `A parent of ${site.path} is not a directory`)
  const resolved = posix.join('/', posix.relative(root, parent), name)
  if (parent === root && reservedNames.has(name))
    throw new FileRefusal(
      'path_reserved',
      `${site.path} is /${name}, which belongs to the node, not to the site`,
    )
  return { site, resolved, absolute: posix.join(parent, name), parent, name }
}
