// A site's home on disk: `<dataDir>/sites/<site id>/` with `htdocs/`, `logs/` and `tmp/`, owned so that the site's
// user writes its documents and temporary files, nginx's workers read the documents, and root alone writes the
// logs nginx's master opens and the runtime's state (a site's user who could swap `logs/access.log` for a link
// would have root append to any file).

import { constants } from 'node:fs'
import { chmod, lchown, lstat, mkdir, open } from 'node:fs/promises'
import { NodeFailure } from '../contract.ts'
import type { SiteLayout } from './layout.ts'
import type { UnixUser } from './unix-users.ts'

/** Who a home belongs to when the runtime makes a Unix user per site (root); null owners: files only or not root. */
export interface HomeOwners {
  readonly user: UnixUser
  /** The group of nginx's workers (`www-data`): the documents' group, so the workers read them. */
  readonly webGid: number
}

/** The directory as it is on disk: refuses anything but a directory in its place (a link would send writes elsewhere). */
export async function existingKind(dir: string): Promise<'absent' | 'directory'> {
  try {
    const stats = await lstat(dir)
    if (stats.isDirectory()) return 'directory'
    throw new NodeFailure(`${dir} exists and is not a directory`, 'unsafe_site_directory')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
    throw error
  }
}

/** Makes `dir` unless it exists, and refuses a link or file in its place. */
async function directory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true })
  await existingKind(dir)
}

/**
 * Makes the site's folders, and, with `owners`, sets who owns them:
 * - the home `root:<site group> 0751`: the site's user lists it, nginx's workers pass through, nobody but root
 *   renames what is in it;
 * - `htdocs/` `<user>:www-data 2750`: new files keep the group nginx's workers read with; other sites see nothing;
 * - `tmp/` `<user> 0700`; `logs/` `root:<site group> 0750` with `logs/php/` (PHP's error log) the user's.
 * Every path is checked to be a directory, never a link, before it is changed.
 */
export async function ensureHome(paths: SiteLayout, owners: HomeOwners | null): Promise<void> {
  await directory(paths.home)
  for (const dir of [paths.htdocs, paths.logs, paths.phpLogs, paths.tmp]) await directory(dir)
  if (!owners) return
  const { user, webGid } = owners
  const set = async (dir: string, uid: number, gid: number, mode: number) => {
    await lchown(dir, uid, gid)
    await chmod(dir, mode)
  }
  await set(paths.home, 0, user.gid, 0o751)
  await set(paths.logs, 0, user.gid, 0o750)
  await set(paths.phpLogs, user.uid, user.gid, 0o750)
  await set(paths.htdocs, user.uid, webGid, 0o2750)
  await set(paths.tmp, user.uid, user.gid, 0o700)
}

/**
 * A small regular file of the site's read as root, or null when it is missing, a link, not a regular file (a FIFO
 * would block) or bigger than `maxBytes`.
 */
export async function readSiteFile(path: string, maxBytes = 65_536): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile() || stats.size > maxBytes) return null
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}
