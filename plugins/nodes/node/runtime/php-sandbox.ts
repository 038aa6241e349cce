// The sandbox a site's PHP-FPM master runs in: the site's Unix user (setpriv), then Debian's bubblewrap run by that
// user (unprivileged, in a user namespace of its own: nothing inside regains root), with a pid namespace of its
// own and a fresh /proc (the site's PHP sees its master and workers, no other process of the node), its /tmp and
// /var/tmp its own tmp/ (counted in its disk), a private /dev whose /dev/shm is a tmpfs of the sandbox's (charged
// to the memory of the cgroup the master runs in), /usr and the node's PHP settings read-only, and the site's home
// at the path it has on the node, so that what PHP sees (`open_basedir`, WordPress's ABSPATH) is what it saw when
// every site shared one master.

import type { SiteLayout } from './layout.ts'
import { sandboxSystem } from './sandbox-system.ts'
import type { UnixUser } from './unix-users.ts'

/**
 * What the site's PHP sees of the node's /etc beyond what every sandbox does: the order addresses are tried in,
 * ImageMagick's policy and the fonts it draws with (WordPress's image editing).
 */
const phpEtc = ['/etc/gai.conf', '/etc/ImageMagick-6', '/etc/fonts']

/** The site's own /etc/passwd: its user alone (PHP's `posix_getpwuid` names it), no other site's. */
export function sandboxPasswd(user: UnixUser | null, paths: SiteLayout): string {
  const own = user
    ? `${user.name}:x:${user.uid}:${user.gid}:Site ${paths.id}:${paths.home}:/usr/sbin/nologin\n`
    : ''
  return `root:x:0:0:root:/root:/usr/sbin/nologin\n${own}nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`
}

/** The site's own /etc/group. */
export function sandboxGroup(user: UnixUser | null): string {
  return `root:x:0:\n${user ? `${user.name}:x:${user.gid}:\n` : ''}nogroup:x:65534:\n`
}

/**
 * The command line running `argv` as the site's user (`user`; null: the runtime's own, which is not root) in the
 * site's sandbox. The order of the binds matters: /tmp first, then the folders under the data directory, so a data
 * directory under /tmp (a test's) is not hidden behind the site's tmp/ (bubblewrap makes the mount points in it).
 */
export function sandboxedMaster(paths: SiteLayout, user: UnixUser | null, argv: readonly string[]): string[] {
  const asUser = user ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'] : []
  return [
    ...asUser,
    'bwrap',
    '--unshare-all',
    '--share-net',
    // PHP-FPM is the namespace's init: when it dies (killed, or stopped), the kernel ends every process left in it
    // (a worker, what a script started), so nothing of the site outlives its master.
    '--as-pid-1',
    '--cap-drop',
    'ALL',
    ...sandboxSystem({ passwd: paths.fpm.passwd, group: paths.fpm.group, more: phpEtc }),
    // Its /dev/shm is a tmpfs of the sandbox's: what PHP keeps there is charged to the memory of the site's group.
    '--tmpfs',
    '/dev/shm',
    '--bind',
    paths.tmp,
    '/tmp',
    '--bind',
    paths.tmp,
    '/var/tmp',
    '--bind',
    paths.home,
    paths.home,
    '--ro-bind',
    paths.fpm.dir,
    paths.fpm.dir,
    '--bind',
    paths.socketDir,
    paths.socketDir,
    '--chdir',
    '/',
    '--',
    ...argv,
  ]
}
