// The long-running masters (nginx, PHP-FPM) the runtime starts: found again through their pid files by any later
// process of the runtime, started in the foreground in a session of their own, reloaded and stopped with signals,
// and watched through /proc and their logs.

import { spawn } from 'node:child_process'
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'

/** How a master is started and recognised. */
export interface MasterSpec {
  /** Its name in messages: `nginx`, `PHP-FPM`. */
  readonly name: string
  /** The command that runs it in the foreground (it stays our child, so nothing is left a zombie). */
  readonly argv: readonly string[]
  readonly pidFile: string
  /**
   * A folder of the master's that only the runtime's user can open files in (nginx's `logs/`, PHP-FPM's `run/`
   * with its pools' sockets): a process of the master's program holding a file or socket under it was started by
   * one of our masters (a worker of a killed master), ended before the master starts again (leftovers.ts). Not the
   * whole data directory: the sites' homes are under it, and a site may run the same programs itself.
   */
  readonly privateDir: string
  /**
   * Which paths under `privateDir` are the master's, when not all are (the shared PHP-FPM of earlier runtimes: its
   * sockets were `run/*.sock`; the sites' masters' now are in folders of their own under `run/`).
   */
  readonly privateFile?: (path: string) => boolean
  /** Whether a process's command line (`/proc/<pid>/cmdline`, NULs as spaces) is this master's, with our config. */
  readonly recognise: (cmdline: string) => boolean
  /**
   * The master runs as the runtime's user, the program `argv[0]` names (nginx's and PHP-FPM's: their workers change
   * user, not them; not MariaDB's, which drops to mysql): a process under the pid file's pid that is not both is not
   * it, whatever its command line says (a site's user may name a process as our master, and be given its pid once
   * it was killed).
   */
  readonly runsAsRuntime?: boolean
  /**
   * The user the process the pid file names runs as, when not the runtime's (a site's master, started as the site's
   * user): a process of any other user under that pid is not it (another site's, given the pid once it died).
   */
  readonly runsAs?: number
  /**
   * The runtime writes the pid file with the pid it started (a master in a sandbox of its own pid namespace, whose
   * own pid file would name its pid in there): the pid is the sandbox's, and {@link signalled} finds the master in it.
   */
  readonly pidFileByRuntime?: boolean
  /** The process signals go to, given the pid file's (the master inside its sandbox); absent: that pid. */
  readonly signalled?: (pid: number) => number | null
  /** What a killed master of this spec left, when the program and private folder do not tell (see leftovers.ts). */
  readonly leftovers?: () => number[]
  /** Where its stderr goes. */
  readonly startupLog: string
  /** Its own log, where it says it is ready and why it failed. */
  readonly log: string
  /** A line of `log` meaning a start or reload is done. */
  readonly ready: RegExp
  /** A line of `log` meaning a reload failed. */
  readonly failed: RegExp
  readonly reloadSignal: NodeJS.Signals
  readonly stopSignal: NodeJS.Signals
}

/** What /proc says of a process, or null when there is none (a zombie counts as none: it is dead). */
export function processInfo(pid: number): { ppid: number; cmdline: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last `)`.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (state === 'Z' || state === 'X') return null
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
    return { ppid: Number(ppid), cmdline }
  } catch {
    return null
  }
}

/** The program a process runs, links resolved (one replaced by an upgrade reads `… (deleted)`). */
export function programOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '')
  } catch {
    return null
  }
}

/** The real user a process runs as, or null when it is gone. */
export function uidOf(pid: number): number | null {
  try {
    const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return uid === undefined ? null : Number(uid)
  } catch {
    return null
  }
}

/** The user the runtime runs as (root on a node). */
export const runtimeUser = () => process.getuid?.() ?? 0

/** `path` with its links resolved, or as it is when it cannot be. */
export const realpathOr = (path: string) => {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** The live children of `pid` (a master's workers). */
export function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    if (processInfo(Number(name))?.ppid === pid) children.push(Number(name))
  }
  return children
}

/** `pid`'s children, theirs, and so on (a sandbox's master and its workers). */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const info = processInfo(Number(name))
    if (info) parents.set(info.ppid, [...(parents.get(info.ppid) ?? []), Number(name)])
  }
  const found: number[] = []
  const queue = [pid]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const children = parents.get(next) ?? []
    found.push(...children)
    queue.push(...children)
  }
  return found
}

/** The pid in `pidFile`, or null. */
function readPid(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/** Whether `pid` runs `spec`'s program as the runtime's user (a site's user cannot). */
const oursToRun = (spec: MasterSpec, pid: number) =>
  uidOf(pid) === runtimeUser() && programOf(pid) === realpathOr(spec.argv[0] ?? '')

/**
 * Our master running without a pid file naming it: PHP-FPM reloads by running itself again under its pid, and
 * removes its pid file until it has read its configuration again; its command line then is the one it was started
 * with, its own name only after. Taken for a dead master meanwhile, it was reported not running (a new site refused
 * `no_node_ready`) and the watch of another process on the data directory ended it as a leftover.
 */
function unnamedMaster(spec: MasterSpec): number | null {
  const started = spec.argv.join(' ')
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    const info = processInfo(pid)
    if (info && (spec.recognise(info.cmdline) || info.cmdline === started) && oursToRun(spec, pid)) return pid
  }
  return null
}

/** The pid of the master running with our configuration, found through its pid file; null when none runs. */
export function runningMaster(spec: MasterSpec): number | null {
  const pid = readPid(spec.pidFile)
  // A stale pid file may name a pid the system has since given to another process.
  const info = pid === null ? null : processInfo(pid)
  if (!spec.runsAsRuntime)
    return pid !== null &&
      info &&
      spec.recognise(info.cmdline) &&
      (spec.runsAs === undefined || uidOf(pid) === spec.runsAs)
      ? pid
      : null
  // The pid file's process, when it is ours: named as the master, or running itself again (see unnamedMaster), or
  // for an instant with no command line at all.
  if (
    pid !== null &&
    info &&
    (spec.recognise(info.cmdline) || info.cmdline === '' || info.cmdline === spec.argv.join(' ')) &&
    oursToRun(spec, pid)
  )
    return pid
  return unnamedMaster(spec)
}

const sizeOf = (path: string) => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/**
 * What `path` gained after `offset` (its last 64 KiB at most); all of it when it is now shorter than `offset` (the
 * runtime's watch rotated it meanwhile: what the master said since is in the new file).
 */
function textSince(path: string, offset: number): string {
  try {
    const buffer = readFileSync(path)
    const from = buffer.length < offset ? 0 : offset
    return buffer.subarray(Math.max(from, buffer.length - 65_536)).toString('utf8')
  } catch {
    return ''
  }
}

/** Polls `check` until it answers something other than undefined; throws `timeout()` after `ms`. */
export async function waitFor<T>(check: () => T | undefined, timeout: () => Error, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw timeout()
    await Bun.sleep(20)
  }
}

const lastLines = (text: string, count = 15) => text.trim().split('\n').slice(-count).join('\n')

/**
 * Starts the master and resolves with its pid once its pid file names it and its log says it is ready; throws
 * with what it said when it exits first (a port taken, a configuration it refuses).
 */
export async function startMaster(spec: MasterSpec): Promise<number> {
  const logOffset = sizeOf(spec.log)
  const startupOffset = sizeOf(spec.startupLog)
  const stderr = openSync(spec.startupLog, 'a', 0o600)
  let exited: string | null = null
  try {
    const [command = '', ...args] = spec.argv
    // A session of its own: a Ctrl-C meant for the panel in a terminal does not reach the sites' server.
    const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', stderr] })
    child.on('exit', (code, signal) => {
      exited = signal ? `killed by ${signal}` : `exit ${code}`
    })
    child.on('error', (error) => {
      exited = error.message
    })
    child.unref()
    const pid = child.pid
    if (spec.pidFileByRuntime && pid !== undefined) writeFileSync(spec.pidFile, `${pid}\n`, { mode: 0o600 })
    return await waitFor(
      () => {
        if (exited !== null)
          throw new Error(
            `${spec.name} did not start (${exited}): ${lastLines(`${textSince(spec.startupLog, startupOffset)}\n${textSince(spec.log, logOffset)}`) || '(no output)'}`,
          )
        if (pid === undefined || readPid(spec.pidFile) !== pid) return undefined
        return spec.ready.test(textSince(spec.log, logOffset)) ? pid : undefined
      },
      () => new Error(`${spec.name} did not say it was ready within 15 s (see ${spec.log})`),
    )
  } finally {
    closeSync(stderr)
  }
}

/**
 * Signals the master to reload its configuration and resolves once its log says the new one is in use (and, for
 * nginx, the old workers are shutting down); throws with its words when it refused or died.
 */
export async function reloadMaster(spec: MasterSpec, running: number): Promise<void> {
  const pid = spec.signalled ? spec.signalled(running) : running
  if (pid === null) throw new Error(`${spec.name} (pid ${running}) runs no master to reload`)
  const offset = sizeOf(spec.log)
  const before = childrenOf(pid)
  process.kill(pid, spec.reloadSignal)
  await waitFor(
    () => {
      const said = textSince(spec.log, offset)
      const failure = said.split('\n').find((line) => spec.failed.test(line))
      if (failure) throw new Error(`${spec.name} refused the new configuration: ${failure.trim()}`)
      // Not processInfo: while the master runs itself again (PHP-FPM's reload), /proc may fail to read it an instant.
      if (!exists(pid)) throw new Error(`${spec.name} died while reloading: ${lastLines(said)}`)
      if (!spec.ready.test(said)) return undefined
      // Workers of the old configuration close their sockets once they start shutting down.
      const old = before.filter((child) => {
        const info = processInfo(child)
        return info !== null && info.ppid === pid && !info.cmdline.includes('shutting down')
      })
      return old.length === 0 ? true : undefined
    },
    () => new Error(`${spec.name} did not finish reloading within 15 s (see ${spec.log})`),
  )
}

/** Whether a process `pid` exists (a zombie included). */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** Sends `name` to `pid`; one that ended meanwhile needs nothing more. */
function sendSignal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

/** Stops the master and waits until it and its children are gone (killing them after 10 s). */
export async function stopMaster(spec: MasterSpec, pid: number): Promise<void> {
  const processes = [pid, ...(spec.signalled ? descendantsOf(pid) : childrenOf(pid))]
  const alive = () => processes.filter((each) => processInfo(each) !== null)
  sendSignal(spec.signalled?.(pid) ?? pid, spec.stopSignal)
  try {
    await waitFor(
      () => (alive().length === 0 ? true : undefined),
      () => new Error('still running'),
      10_000,
    )
  } catch {
    for (const each of alive()) sendSignal(each, 'SIGKILL')
    await waitFor(
      () => (alive().length === 0 ? true : undefined),
      () => new Error(`${spec.name} (pid ${pid}) would not stop`),
      5_000,
    )
  }
}
