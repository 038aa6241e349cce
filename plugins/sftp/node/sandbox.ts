// The sandbox an SFTP session runs in: OpenSSH's `sftp-server` as the site's Unix user inside bubblewrap, where the
// site's home is `/` (htdocs and tmp writable, logs read-only) and nothing else of the node exists: no /etc, /usr
// or other sites to climb to or to follow a link into. The program and its libraries are bound at a hidden
// `/.plinth`, run through the dynamic loader, so the site's home needs no mount points of its own.

import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'

/** Where Debian's `openssh-sftp-server` (and other distributions) put the program. */
const sftpServerPaths = [
  '/usr/lib/openssh/sftp-server',
  '/usr/libexec/openssh/sftp-server',
  '/usr/libexec/sftp-server',
]

/** What the node runs sessions with, found once at start. */
export interface SandboxTools {
  readonly bwrap: string
  readonly sftpServer: string
  /** The dynamic loader (`ld-linux-x86-64.so.2`, …) the program names. */
  readonly loader: string
  /** The shared libraries `ldd` lists for the program. */
  readonly libraries: readonly string[]
}

/** A missing program, named with the Debian package that brings it. */
export class SandboxUnavailable extends Error {}

/** Finds bubblewrap, sftp-server, its loader and libraries; throws {@link SandboxUnavailable} naming what lacks. */
export function findSandboxTools(): SandboxTools {
  const bwrap = Bun.which('bwrap')
  if (!bwrap) throw new SandboxUnavailable('bwrap is missing: install Debian’s bubblewrap')
  const sftpServer = sftpServerPaths.find((path) => Bun.file(path).size > 0)
  if (!sftpServer)
    throw new SandboxUnavailable('sftp-server is missing: install Debian’s openssh-sftp-server')
  const ldd = Bun.spawnSync(['ldd', sftpServer], { env: { PATH: '/usr/bin:/bin', LANG: 'C' } })
  if (ldd.exitCode !== 0) throw new SandboxUnavailable(`ldd ${sftpServer} failed: ${ldd.stderr.toString()}`)
  const libraries: string[] = []
  let loader: string | null = null
  for (const line of ldd.stdout.toString().split('\n')) {
    const linked = /=>\s+(\/\S+)/.exec(line)
    if (linked?.[1]) {
      libraries.push(linked[1])
      continue
    }
    // The loader is the line with an absolute path and no arrow: `/lib64/ld-linux-x86-64.so.2 (0x…)`.
    const direct = /^\s*(\/\S+)\s+\(0x/.exec(line)
    if (direct?.[1]) loader = direct[1]
  }
  if (!loader) throw new SandboxUnavailable(`ldd names no dynamic loader for ${sftpServer}`)
  return { bwrap, sftpServer, loader, libraries }
}

/** The site's user as the sandbox's `/etc/passwd` and `/etc/group` name it (sftp-server looks itself up). */
export interface SandboxUser {
  readonly name: string
  readonly uid: number
  readonly gid: number
}

/**
 * Writes `<dir>/<uid>.passwd` and `.group`, naming the site's user alone, for the sandbox's `/etc` (the folder is
 * passable by all, 0711, since bubblewrap binds them as the site's user; the files say nothing secret).
 */
export async function writeIdentityFiles(
  dir: string,
  user: SandboxUser,
): Promise<{ passwd: string; group: string }> {
  await mkdir(dir, { recursive: true, mode: 0o711 })
  await chmod(dir, 0o711)
  const passwd = join(dir, `${user.uid}.passwd`)
  const group = join(dir, `${user.uid}.group`)
  await writeFile(passwd, `${user.name}:x:${user.uid}:${user.gid}::/:/usr/sbin/nologin\n`, { mode: 0o644 })
  await writeFile(group, `${user.name}:x:${user.gid}:\n`, { mode: 0o644 })
  return { passwd, group }
}

/** Options of {@link sandboxArgv}. */
export interface SandboxOptions {
  readonly tools: SandboxTools
  /** The site's home (a real path): its `htdocs`, `logs` and `tmp` become `/htdocs`, `/logs` (read-only), `/tmp`. */
  readonly home: string
  readonly identity: { readonly passwd: string; readonly group: string }
  /** sftp-server's `-R`: every write refused. */
  readonly readOnly: boolean
}

/**
 * The bubblewrap command line running sftp-server confined to the site: every namespace unshared (no network, no
 * other process visible), a read-only tmpfs as `/` with only the site's folders bound into it, `/dev/null`, the two
 * identity files, and the program with its loader and libraries at `/.plinth`. Symbolic and hard links cannot be
 * made (`-P`), so nothing in the site points out of it by way of SFTP; links planted otherwise resolve inside the
 * sandbox, where the node's files do not exist. Run it as the site's user (`NodeSite.asUser`).
 */
export function sandboxArgv(options: SandboxOptions): string[] {
  const { tools, home } = options
  const hidden = '/.plinth'
  const bind = (source: string, target: string) => ['--ro-bind', source, target]
  const argv = [
    tools.bwrap,
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--tmpfs',
    '/',
    '--bind',
    join(home, 'htdocs'),
    '/htdocs',
    '--ro-bind',
    join(home, 'logs'),
    '/logs',
    '--bind',
    join(home, 'tmp'),
    '/tmp',
    '--perms',
    '0111',
    '--dir',
    '/dev',
    '--dev-bind',
    '/dev/null',
    '/dev/null',
    '--perms',
    '0111',
    '--dir',
    '/etc',
    ...bind(options.identity.passwd, '/etc/passwd'),
    ...bind(options.identity.group, '/etc/group'),
    '--perms',
    '0111',
    '--dir',
    hidden,
    ...bind(tools.sftpServer, `${hidden}/sftp-server`),
    ...bind(tools.loader, `${hidden}/lib/${basename(tools.loader)}`),
    ...tools.libraries.flatMap((library) => bind(library, `${hidden}/lib/${basename(library)}`)),
    '--remount-ro',
    '/',
    '--chdir',
    '/',
    `${hidden}/lib/${basename(tools.loader)}`,
    '--library-path',
    `${hidden}/lib`,
    `${hidden}/sftp-server`,
    '-d',
    '/',
    '-u',
    '022',
    '-P',
    'symlink,hardlink',
    '-l',
    'ERROR',
    '-e',
  ]
  if (options.readOnly) argv.push('-R')
  return argv
}
