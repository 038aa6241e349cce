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
 * The first process of the command's PID namespace (its init), root, started by `unshare --kill-child`: it holds the
 * death signal that flag sets (SIGKILL when unshare dies), which it keeps since it never changes user nor execs into
 * the command. It runs the command as its child and waits for it (reaping what the command orphaned), then exits
 * with its status (128 + the signal's number for one killed): when it dies, killed with unshare or after the
 * command, the kernel kills every process left in its namespace. Its own stderr is /dev/null (the command keeps the
 * real one), so the shell's "Killed" for a command killed by a signal is not added to the command's.
 *
 * Before that, as root in the command's mount namespace (unshare's, private), before the user is dropped to: /tmp and
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
exec 3>&2 2>/dev/null
( "$@" ) 2>&3 3>&-
exit $?`

/**
 * The process a command line run as a site's user starts as, root, outside the command's namespaces: it runs unshare
 * as its child, with the death signal SIGKILL (`setpriv --pdeathsig`), waits for it, and exits with its status. So
 * whatever kills it, Bun's SIGTERM (which unshare itself blocks while it waits) or SIGKILL, kills unshare, which
 * kills the namespace's init, which takes every process of the command with it. A status of 128 + the number of a
 * signal that ends a process (not SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH) is the
 * command killed by it, as a shell says: it kills itself with that signal (no core dumped), so its caller sees the
 * command killed by it as before (a command exiting with such a code itself looks killed too). As the init, it says
 * nothing on stderr itself.
 */
const waiter = `exec 3>&2 2>/dev/null
( "$@" ) 2>&3 3>&-
status=$?
if [ "$status" -gt 128 ] && [ "$status" -lt 160 ]; then
  case $((status - 128)) in
    17 | 18 | 19 | 20 | 21 | 22 | 23 | 28) ;;
    *) ulimit -c 0; kill -$((status - 128)) $$ ;;
  esac
fi
exit "$status"`

/**
 * The command line running `argv` as `as` (or as it is without one): in a session of its own, so the site's code
 * (WordPress's installer loads its config and plugins) cannot keep the agent's controlling terminal, where it could
 * push input into a root shell (TIOCSTI); dropped to the user with `setpriv`, no supplementary groups; placed first,
 * as root, in the site's group when `as.enter` says how. It runs in a pid namespace of its own with its own /proc
 * (what `hidepid` gives, without remounting the node's): the site's code (WordPress's plugins, run by the installer
 * and the runner) sees no other process of the node, another site's command lines included. Killing the process
 * the command line starts (its timeout, a cancel: Bun's SIGTERM, or SIGKILL) ends every process of the command
 * (see {@link waiter} and {@link sitePlaces}): the user's code is not the namespace's init, which it would be after
 * exec (setpriv's change of user clears the death signal `--kill-child` gives, and the namespace would live on). Its
 * System V IPC (shared memory, semaphores, message queues) is its own too, gone with it: in the node's, what it
 * made would outlive it and its site (RAM held, the node's 4096 shared memory ids used up for PostgreSQL and others).
 */
export function userCommand(argv: readonly string[], as: RunAs | undefined): string[] {
  if (!as) return [...argv]
  const dropped = [
    '/bin/sh',
    '-c',
    waiter,
    'plinth-run',
    'setpriv',
    '--pdeathsig',
    'KILL',
    '--',
    'unshare',
    '--pid',
    '--ipc',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '/bin/sh',
    '-c',
    sitePlaces,
    'plinth-init',
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
