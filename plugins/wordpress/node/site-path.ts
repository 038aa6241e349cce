// A site path (`/tmp/plugin.zip`, as the API names paths: `/` is the site's home) turned into the node's path of a
// regular file inside the site: no NUL or control character, no `..` above `/`, the parent's links resolved and
// checked to stay inside the home, the file itself never followed when it is a link.
//
// The parent is resolved one folder at a time, never by realpath: the node looks as root, which sees every site's
// files, and a realpath through a link to another site answered "leads out of the site" where the other site's file
// existed and "not found" where it did not, telling one site what another has. A link is judged by its target's text
// (out of the home is out, wherever it leads), and each step looks through the folder already reached (its open
// descriptor), so a folder swapped for a link meanwhile is not followed either. The files plugin resolves its paths
// the same way (plugins/files/node/site-paths.ts).

import { constants } from 'node:fs'
import { type FileHandle, lstat, open, readlink } from 'node:fs/promises'
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

/** The most links one path may pass through, as the kernel allows. */
const maxLinks = 40
const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

/**
 * What `name` is in the folder `segments` lead to from `home`, its links followed by their text and never out of
 * `home`: its lstat and its node path, or a refusal. Nothing outside `home` is looked at.
 */
async function lookInside(home: string, segments: readonly string[], name: string, sitePath: string) {
  const names: string[] = []
  const handles: FileHandle[] = [await open(home, directoryFlags)]
  const pending = [...segments]
  let links = 0
  const through = (entry: string) => `/proc/self/fd/${(handles.at(-1) as FileHandle).fd}/${entry}`
  try {
    while (pending.length > 0) {
      const segment = pending.shift() ?? ''
      if (segment === '' || segment === '.') continue
      if (segment === '..') {
        if (names.length === 0) throw escapes(sitePath)
        names.pop()
        await handles.pop()?.close()
        continue
      }
      const stats = await lstat(through(segment)).catch(() => null)
      if (!stats) throw missing(sitePath)
      if (stats.isSymbolicLink()) {
        if (++links > maxLinks) throw invalid(sitePath, 'passes through too many symbolic links')
        const target = await readlink(through(segment))
        if (target.startsWith('/')) {
          if (!inside(home, target)) throw escapes(sitePath)
          names.length = 0
          for (const handle of handles.splice(1)) await handle.close()
          pending.unshift(...target.slice(home.length).split('/'))
        } else pending.unshift(...target.split('/'))
        continue
      }
      if (!stats.isDirectory()) throw missing(sitePath)
      handles.push(
        await open(through(segment), directoryFlags).catch(() => Promise.reject(missing(sitePath))),
      )
      names.push(segment)
    }
    return { stats: await lstat(through(name)).catch(() => null), path: join(home, ...names, name) }
  } finally {
    for (const handle of handles) await handle.close().catch(() => {})
  }
}

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
  const { stats, path } = await lookInside(home, segments, name, sitePath)
  if (!stats) throw missing(sitePath)
  if (stats.isSymbolicLink()) throw invalid(sitePath, 'is a symbolic link, which is not followed')
  if (!stats.isFile()) throw invalid(sitePath, 'is not a regular file')
  return path
}
