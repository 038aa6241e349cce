// Running the programs the runtime drives (nginx -t, php-fpm -t, useradd, cp, php), as root or as a site's user.

import { outputOf } from '../contract.ts'

/** A Unix account a command runs as, dropped to with `setpriv` (no supplementary groups). */
export interface RunAs {
  readonly uid: number
  readonly gid: number
  /** Its home, given as `HOME`. */
  readonly home: string
  /**
   * Wraps the command line so that, run as root, it first places itself in the site's cgroup (`SiteGroups.enter`):
   * the user is dropped to after, so nothing the command starts is ever outside the group. Default: not placed.
   */
  readonly enter?: (argv: readonly string[]) => string[]
}

/** Options of {@link run}. */
export interface RunOptions {
  /** Written to the command's stdin, then closed. Default: none. */
  readonly stdin?: string | Uint8Array
  readonly cwd?: string
  /** Runs the command as this user instead of the runtime's. Default: the runtime's own user. */
  readonly as?: RunAs
  /** Kills the command after this many ms. Default 120 000. */
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
}

/** What a finished command said. */
export interface RunResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A clean environment: commands run as a site's user get nothing of the panel's (secrets included). */
export function environment(as: RunAs | undefined): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    LANG: 'C.UTF-8',
    HOME: as?.home ?? process.env.HOME ?? '/',
  }
}

/**
 * Run as root in the command's mount namespace (unshare's, private), before the user is dropped to: /tmp and
 * /var/tmp become the site's tmp/ (on its image, in its quota) and /dev/shm a tmpfs of its own (charged to its
 * group's memory), not the node's, which every site would share and nothing counts. /run (and /var/run, its link)
 * becomes an empty tmpfs: the node's services listen there on Unix sockets (PostgreSQL's, MariaDB's, the bus's),
 * which the node's firewall, made of addresses and ports, does not close; a resolver configuration kept there (the
 * target of a linked /etc/resolv.conf) is copied in. A folder the home lies beneath (a test's data directory under
 * /tmp) is kept, or the home would be hidden; a home without tmp/ keeps /tmp and /var/tmp too.
 */
const sitePlaces = `home=$1; shift
beneath() { case "$home/" in "$1"/*) return 0 ;; esac; return 1; }
if [ -d "$home/tmp" ]; then
  for dir in /tmp /var/tmp; do beneath "$dir" || mount --bind "$home/tmp" "$dir" || exit 125; done
fi
mount -t tmpfs -o nosuid,nodev,mode=1777 plinth-shm /dev/shm || exit 125
if ! beneath /run; then
  resolver=$(readlink -f /etc/resolv.conf)
  case "$resolver" in /run/*) kept=$(cat "$resolver") ;; *) resolver= ;; esac
  mount -t tmpfs -o nosuid,nodev,mode=755,size=1m plinth-run /run || exit 125
  if [ -n "$resolver" ]; then
    mkdir -p "\${resolver%/*}" && printf '%s\\n' "$kept" > "$resolver" || exit 125
  fi
fi
exec "$@"`

/**
 * The command line running `argv` as `as` (or as it is without one): in a session of its own, so the site's code
 * (WordPress's installer loads its config and plugins) cannot keep the agent's controlling terminal, where it could
 * push input into a root shell (TIOCSTI); dropped to the user with `setpriv`, no supplementary groups; placed first,
 * as root, in the site's group when `as.enter` says how. It runs in a pid namespace of its own with its own /proc
 * (what `hidepid` gives, without remounting the node's): the site's code (WordPress's plugins, run by the installer
 * and the runner) sees no other process of the node, another site's command lines included. `--kill-child`: when
 * the command is killed (its timeout), the namespace's first process dies, and every process in it with it. Its
 * System V IPC (shared memory, semaphores, message queues) is its own too, gone with it: in the node's, what it
 * made would outlive it and its site (RAM held, the node's 4096 shared memory ids used up for PostgreSQL and others).
 */
export function userCommand(argv: readonly string[], as: RunAs | undefined): string[] {
  if (!as) return [...argv]
  const dropped = [
    'unshare',
    '--pid',
    '--ipc',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '/bin/sh',
    '-c',
    sitePlaces,
    'plinth-run',
    as.home,
    'setsid',
    '--wait',
    'setpriv',
    `--reuid=${as.uid}`,
    `--regid=${as.gid}`,
    '--clear-groups',
    '--',
    ...argv,
  ]
  return as.enter ? as.enter(dropped) : dropped
}

/** Runs `argv` to its end and resolves with its exit code and output; never throws for a non-zero exit. */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  options.signal?.throwIfAborted()
  const command = userCommand(argv, options.as)
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: environment(options.as),
    stdin: options.stdin === undefined ? 'ignore' : new Blob([options.stdin as BlobPart]),
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: options.timeoutMs ?? 120_000,
    signal: options.signal,
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  options.signal?.throwIfAborted()
  return { code, stdout, stderr }
}

export { outputOf }

/** Runs `argv` and resolves with its stdout; a non-zero exit throws, naming `what` and quoting the output. */
export async function runChecked(
  what: string,
  argv: readonly string[],
  options: RunOptions = {},
): Promise<string> {
  const result = await run(argv, options)
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}): ${outputOf(result)}`)
  return result.stdout
}
