// The sandbox commands and shells of a site run in: the site's Unix user (setpriv) inside Debian's bubblewrap, which
// shows them /usr read-only, the site's htdocs/ and tmp/ writable, its logs/ read-only, a minimal /etc, and nothing
// else of the node: no other site, no panel or runtime data, no state file. The network is shared (WP-CLI and
// composer fetch packages; the site's PHP has the network anyway).

import { chmodSync, closeSync, constants, lstatSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NodeRefusal, type NodeSite, sandboxSystem } from '../../nodes/node/contract.ts'

/** The site's user, or a refusal: a node that runs no user per site cannot confine a command to one. */
export function siteUserOf(site: NodeSite): NonNullable<NodeSite['user']> {
  if (!site.user)
    throw new NodeRefusal(
      'shell_unavailable',
      'This node runs no Unix user per site (it lays out files only, or does not run as root): commands and shells are not offered.',
    )
  return site.user
}

/** Writes `content` into a file that must not exist yet: never through a link, never over another file. */
function writeFresh(path: string, content: string): void {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  )
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
}

/**
 * The site's own /etc/passwd and /etc/group (its user alone: other sites' users are not listed), written for one
 * run into a fresh directory of the runtime's: made by `mkdtemp` (a new random name, created or failing, never one
 * a site's user made or linked beforehand), owned by the runtime's user and writable by it alone (0711: the site's
 * user passes through to read the two files, as bubblewrap runs as that user). Sites' code shares the node's /tmp
 * (their PHP runs there), which is why nothing here is at a name known in advance. Removed when the run ends.
 */
function etcFiles(site: NodeSite, user: NonNullable<NodeSite['user']>) {
  const folder = mkdtempSync(join(tmpdir(), 'plinth-sandbox-'))
  const made = lstatSync(folder)
  if (!made.isDirectory() || made.uid !== process.getuid?.())
    throw new Error(`The sandbox's directory ${folder} is not the runtime's own`)
  chmodSync(folder, 0o711)
  const passwd = join(folder, 'passwd')
  const group = join(folder, 'group')
  try {
    writeFresh(
      passwd,
      `root:x:0:0:root:/root:/usr/sbin/nologin\n${user.name}:x:${user.uid}:${user.gid}:Site ${site.id}:/tmp:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    )
    writeFresh(group, `root:x:0:\n${user.name}:x:${user.gid}:\nnogroup:x:65534:\n`)
  } catch (error) {
    rmSync(folder, { recursive: true, force: true })
    throw error
  }
  return { passwd, group, remove: () => rmSync(folder, { recursive: true, force: true }) }
}

/** How a sandboxed program starts. */
export interface SandboxOptions {
  /** The working directory inside the sandbox (`/htdocs/...`). */
  readonly cwd: string
  /** Whether it gets a session of its own (commands: yes, so none can reach a terminal; shells own theirs). */
  readonly newSession: boolean
}

/** A sandboxed program's command line, and what to call once it ended (its generated files go). */
export interface Sandboxed {
  readonly argv: string[]
  /** Removes the run's generated files; call it once the program exited (bubblewrap bound them at its start). */
  release(): void
}

/**
 * The command line running `argv` as the site's user in its sandbox, in the site's cgroup (entered as root, before
 * anything else). The user is dropped to first (setpriv), so
 * bubblewrap runs unprivileged in a user namespace of that user's: nothing inside can regain root. Inside, the
 * site's directories appear where the API names them: `/htdocs`, `/logs` (read-only) and `/tmp`.
 */
export function sandboxed(site: NodeSite, argv: readonly string[], options: SandboxOptions): Sandboxed {
  const user = siteUserOf(site)
  const { passwd, group, remove } = etcFiles(site, user)
  let released = false
  const release = () => {
    if (released) return
    released = true
    remove()
  }
  return {
    release,
    // Placed in the site's group first, as root: what the sandbox runs is held to the site's limits and ends with it.
    argv: site.enter([
      'setpriv',
      `--reuid=${user.uid}`,
      `--regid=${user.gid}`,
      '--clear-groups',
      '--',
      'bwrap',
      '--unshare-all',
      '--share-net',
      '--die-with-parent',
      ...(options.newSession ? ['--new-session'] : []),
      '--cap-drop',
      'ALL',
      ...sandboxSystem({ passwd, group }),
      '--bind',
      join(site.home, 'htdocs'),
      '/htdocs',
      '--bind',
      join(site.home, 'tmp'),
      '/tmp',
      '--ro-bind-try',
      join(site.home, 'logs'),
      '/logs',
      '--chdir',
      options.cwd,
      '--',
      ...argv,
    ]),
  }
}

/** The environment of sandboxed programs: nothing of the node's (its secrets included). */
export function sandboxEnvironment(site: NodeSite, extra: Readonly<Record<string, string>> = {}) {
  const user = siteUserOf(site)
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
    LANG: 'C.UTF-8',
    HOME: '/tmp',
    USER: user.name,
    LOGNAME: user.name,
    SHELL: '/bin/bash',
    ...extra,
  }
}
