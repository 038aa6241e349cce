// A site path (`/tmp/plugin.zip`, as the API names paths: `/` is the site's home) turned into the node's path of a
// regular file inside the site: no NUL or control character, no `..` above `/`, the parent's links resolved and
// checked to stay inside the home, the file itself never followed when it is a link.

import { lstat, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { NodeRefusal } from '../../nodes/node/contract.ts'

const invalid = (path: string, why: string) =>
  new NodeRefusal('invalid_package_path', `${JSON.stringify(path)} ${why}`, { path })
const escapes = (path: string) =>
  new NodeRefusal('package_path_escapes_site', `${JSON.stringify(path)} leads out of the site`, { path })
const missing = (path: string) =>
  new NodeRefusal('wordpress_package_not_found', `There is no file at ${JSON.stringify(path)}`, { path })

/** Whether `path` is `home` or inside it. */
const inside = (home: string, path: string) => path === home || path.startsWith(`${home}/`)

/**
 * The node's path of the regular file at the site path `sitePath` in the site whose real home is `home`, or a
 * refusal: `invalid_package_path`, `package_path_escapes_site`, `wordpress_package_not_found`.
 */
export async function siteFile(home: string, sitePath: unknown): Promise<string> {
  if (typeof sitePath !== 'string' || !sitePath.startsWith('/') || Buffer.byteLength(sitePath) > 4096)
    throw invalid(String(sitePath).slice(0, 100), 'is not a site path (one starting with /)')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\x00-\x1f\x7f]/.test(sitePath)) throw invalid(sitePath, 'holds a NUL byte or a control character')
  const segments: string[] = []
  for (const segment of sitePath.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment !== '..') segments.push(segment)
    else if (segments.pop() === undefined) throw escapes(sitePath)
  }
  const name = segments.pop()
  if (name === undefined) throw invalid(sitePath, 'is the site’s home, not a file')
  if (segments.length === 0 && name === 'state.json') throw invalid(sitePath, 'belongs to the node')
  let parent: string
  try {
    parent = await realpath(join(home, ...segments))
  } catch {
    throw missing(sitePath)
  }
  if (!inside(home, parent)) throw escapes(sitePath)
  const path = join(parent, name)
  const stats = await lstat(path).catch(() => null)
  if (!stats) throw missing(sitePath)
  if (stats.isSymbolicLink()) throw invalid(sitePath, 'is a symbolic link, which is not followed')
  if (!stats.isFile()) throw invalid(sitePath, 'is not a regular file')
  return path
}
