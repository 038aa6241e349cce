// What a site's sandbox (its PHP-FPM master's, its commands' and shells') sees of the node's own system, the same
// for each: /usr read-only with the /bin, /sbin, /lib and /lib64 links of a merged-/usr Debian, a /proc of the
// sandbox's pid namespace, a private /dev, and an /etc of its own holding the site's passwd and group files and a few
// of the node's files read-only. What differs between the sandboxes (the site's folders, its /tmp) each adds after.

/** Host files every sandbox sees read-only when they exist: name resolution, TLS roots, PHP's settings, time zone. */
const hostEtc = [
  '/etc/alternatives',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/php',
  '/etc/localtime',
  '/etc/ld.so.cache',
  '/etc/mime.types',
  '/etc/wordpress',
]

/** The site's own /etc files a sandbox is given, and what more of the node's /etc it sees than `hostEtc`. */
export interface SandboxEtc {
  /** The file bound read-only as /etc/passwd: the site's user alone, no other site's. */
  readonly passwd: string
  /** The file bound read-only as /etc/group. */
  readonly group: string
  /** More of the node's /etc, bound read-only when it exists. */
  readonly more?: readonly string[]
}

/** bubblewrap's arguments giving a sandbox the node's system (see above); they come before the site's own binds. */
export function sandboxSystem(etc: SandboxEtc): string[] {
  return [
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--dir',
    '/etc',
    '--ro-bind',
    etc.passwd,
    '/etc/passwd',
    '--ro-bind',
    etc.group,
    '/etc/group',
    ...[...hostEtc, ...(etc.more ?? [])].flatMap((path) => ['--ro-bind-try', path, path]),
  ]
}
