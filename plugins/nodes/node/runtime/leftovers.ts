// What a killed master leaves behind: nginx's workers outlive a master killed with SIGKILL and keep its ports (the
// next master's bind() then fails with "Address already in use"), PHP-FPM's children keep its pools' sockets, and a
// master whose pid file was lost runs on unseen. Before a master is started again, the runtime finds the processes
// of that master's program that are its own and ends them; never another runtime's, nor the system's nginx
// (Debian's, on port 80), nor a site's: a site may run the same nginx or PHP-FPM from its home (under the data
// directory) as its own user, even with a command line that names our configuration. So a master is ours only when
// it runs as the runtime's user, and a worker only when it holds what only our masters could have opened.

import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import {
  type MasterSpec,
  processInfo,
  programOf,
  realpathOr,
  runtimeUser,
  uidOf,
  waitFor,
} from './masters.ts'

/** The inodes of the Unix sockets bound under `dir` (PHP-FPM's pools' sockets), from /proc/net/unix. */
function socketsUnder(dir: string, mine: (path: string) => boolean): Set<string> {
  const inodes = new Set<string>()
  try {
    for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
      // `Num RefCount Protocol Flags Type St Inode Path`
      const fields = line.trim().split(/\s+/)
      const [inode, path] = [fields[6], fields[7]]
      if (inode && path?.startsWith(dir) && mine(path)) inodes.add(inode)
    }
  } catch {
    // No /proc/net/unix: the files a process holds still tell.
  }
  return inodes
}

/** Whether `pid` holds open a file under `dir`, or one of `sockets`. */
function holdsUnder(
  pid: number,
  dir: string,
  mine: (path: string) => boolean,
  sockets: ReadonlySet<string>,
): boolean {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  for (const fd of fds) {
    let target: string
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue
    }
    if (target.startsWith(dir) && mine(target)) return true
    const socket = /^socket:\[(\d+)\]$/.exec(target)?.[1]
    if (socket && sockets.has(socket)) return true
  }
  return false
}

/**
 * The processes of `spec`'s program that belong to the runtime: its master (by its command line, which names the
 * configuration, and its user, the runtime's) and every process of the same program holding a file or socket under
 * the master's private folder (its workers, its pools' children, whose command lines name nothing of it and which
 * may run as a site's user).
 */
export function leftoversOf(spec: MasterSpec): number[] {
  if (spec.leftovers) return spec.leftovers()
  const program = realpathOr(spec.argv[0] ?? '')
  const dir = `${realpathOr(spec.privateDir)}/`
  const mine = spec.privateFile ?? (() => true)
  const sockets = socketsUnder(dir, mine)
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    if (pid === process.pid || programOf(pid) !== program) continue
    const info = processInfo(pid)
    if (!info) continue
    const master = spec.recognise(info.cmdline) && uidOf(pid) === runtimeUser()
    if (master || holdsUnder(pid, dir, mine, sockets)) found.push(pid)
  }
  return found
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

/**
 * Ends what is left of `spec`'s master: asked to stop (its stop signal), killed after 2 s. Called only while no
 * master of ours runs (its pid file names none), so nothing found serves anything the runtime still drives: workers
 * of a killed master keep answering with its last configuration and no reload ever reaches them. Answers the pids
 * it ended.
 */
export async function endLeftovers(spec: MasterSpec): Promise<number[]> {
  const found = leftoversOf(spec)
  if (found.length === 0) return []
  const alive = () => found.filter((pid) => processInfo(pid) !== null)
  for (const pid of found) signal(pid, spec.stopSignal)
  try {
    await waitFor(
      () => (alive().length === 0 ? true : undefined),
      () => new Error('still running'),
      2_000,
    )
  } catch {
    for (const pid of alive()) signal(pid, 'SIGKILL')
    await waitFor(
      () => (alive().length === 0 ? true : undefined),
      () => new Error(`${spec.name}'s leftovers (${alive().join(', ')}) would not end`),
      5_000,
    )
  }
  return found
}
