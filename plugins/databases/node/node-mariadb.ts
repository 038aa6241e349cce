// The node's own MariaDB: a server of its own under the node's data directory (`services/database/`), listening on
// loopback only (the node's sites reach it; other machines do not), made on first start with an administrator
// whose password stays in a root-only file of the node, and kept running across restarts of the node's process,
// as its nginx and PHP-FPM are. Once made it keeps its port: the sites' configurations name it.

import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { chmod, chown, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import mysql from 'mysql2/promise'
import { type MasterSpec, runningMaster, startMaster, stopMaster } from '../../nodes/node/contract.ts'
import type { ServerAccess } from '../engines/engine.ts'

/** Where the server lives, and the port a new one takes. */
export interface NodeMariadbSettings {
  /** The service's own directory on the node (`<node data dir>/services/database`). */
  readonly dir: string
  /** The port on 127.0.0.1 a server made now listens on (one made before keeps its own). */
  readonly port: number
}

/** The programs the server needs, found on the machine; null when MariaDB's server is not installed. */
export interface MariadbPrograms {
  readonly server: string
  readonly installDb: string
  readonly client: string
}

/** Where to look for programs: the system directories a root `PATH` has, and those a non-root one may lack. */
const searchDirs = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', '/sbin', '/bin']
const find = (...names: string[]) => {
  for (const name of names)
    for (const dir of searchDirs) if (existsSync(join(dir, name))) return join(dir, name)
  return null
}

/** MariaDB's server, its installer of system tables and its client, when Debian's `mariadb-server` is installed. */
export function findMariadb(): MariadbPrograms | null {
  const server = find('mariadbd', 'mysqld')
  const installDb = find('mariadb-install-db', 'mysql_install_db')
  const client = find('mariadb', 'mysql')
  return server && installDb && client ? { server, installDb, client } : null
}

/** The server's files under its directory. */
function pathsOf(dir: string) {
  return {
    conf: join(dir, 'my.cnf'),
    /** What the server was made with (its port), kept so later starts keep it. */
    record: join(dir, 'server.json'),
    data: join(dir, 'data'),
    /** Written once the installer finished: a data directory without it is an installation cut short. */
    made: join(dir, 'data', '.plinth-made'),
    run: join(dir, 'run'),
    socket: join(dir, 'run', 'mariadb.sock'),
    pid: join(dir, 'run', 'mariadb.pid'),
    // In a folder of the server's user: it opens its log after dropping to that user.
    log: join(dir, 'run', 'error.log'),
    startupLog: join(dir, 'startup.log'),
    admin: join(dir, 'admin.json'),
  }
}

/** The user the server runs as: Debian's `mysql`. */
function mysqlUser(): { uid: number; gid: number } | null {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':')
    if (name === 'mysql') return { uid: Number(uid), gid: Number(gid) }
  }
  return null
}

/** The server's configuration: loopback only, its files under its directory, no name lookups. */
function config(dir: string, port: number): string {
  const paths = pathsOf(dir)
  return `# Managed by Plinth: the node's own MariaDB, for its sites. Rewritten at every start.
[mariadbd]
datadir = ${paths.data}
socket = ${paths.socket}
pid-file = ${paths.pid}
log-error = ${paths.log}
port = ${port}
bind-address = 127.0.0.1
user = mysql
skip-name-resolve
character-set-server = utf8mb4
collation-server = utf8mb4_unicode_ci
`
}

/** A MariaDB master as the node runs it. */
function masterSpec(programs: MariadbPrograms, dir: string): MasterSpec {
  const paths = pathsOf(dir)
  return {
    name: 'MariaDB',
    argv: [programs.server, `--defaults-file=${paths.conf}`],
    pidFile: paths.pid,
    privateDir: paths.run,
    recognise: (cmdline) => cmdline.includes(`--defaults-file=${paths.conf}`),
    startupLog: paths.startupLog,
    log: paths.log,
    ready: /ready for connections/,
    failed: /\[ERROR\] Aborting/,
    reloadSignal: 'SIGHUP',
    stopSignal: 'SIGTERM',
  }
}

/**
 * Refuses a directory the server's own user could not reach: every directory above it must let others pass (the
 * node's data directory is opened for passage when it first serves).
 */
function checkPassage(dir: string): void {
  for (let current = dirname(dir); current !== dirname(current); current = dirname(current))
    if ((statSync(current).mode & 0o001) === 0)
      throw new Error(
        `The node's database cannot live in ${dir}: ${current} lets no other user through (MariaDB runs as mysql)`,
      )
}

/** A command of the installer or the client; throws with its words when it fails. */
async function runChecked(argv: string[], stdin?: string): Promise<void> {
  const child = Bun.spawn(argv, {
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 120_000,
  })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0)
    throw new Error(`${argv[0]} failed (exit ${code}): ${(err.trim() || out.trim()).slice(-1000)}`)
}

/** The node's MariaDB. */
export interface NodeMariadb {
  /**
   * Makes it on first use (system tables, administrator) and starts it unless it runs (again, with a changed
   * configuration); resolves with its version and the port it listens on.
   */
  start(): Promise<{ readonly version: string; readonly port: number }>
  /** Whether its master runs now. */
  running(): boolean
  /** Stops it (the node's process never does: its sites need it across restarts; tests and removals do). */
  stop(): Promise<void>
  /** How the node's engine reaches it as its administrator (loopback, a password of the node's). */
  access(): Promise<ServerAccess>
}

/**
 * The port the server made under `dir` listens on, as its files say (its record, or the configuration of a server
 * made before the record), without starting it; null when none was made there.
 */
export function madePort(dir: string): number | null {
  const paths = pathsOf(dir)
  try {
    const recorded = (JSON.parse(readFileSync(paths.record, 'utf8')) as { port?: unknown }).port
    if (typeof recorded === 'number' && Number.isInteger(recorded)) return recorded
  } catch {
    // No record: a server made before it names its port in its configuration.
  }
  try {
    const configured = /^port = (\d+)$/m.exec(readFileSync(paths.conf, 'utf8'))?.[1]
    return configured === undefined ? null : Number(configured)
  } catch {
    return null
  }
}

/** The node's MariaDB with `programs`, under `settings.dir`. */
export function nodeMariadb(programs: MariadbPrograms, settings: NodeMariadbSettings): NodeMariadb {
  const paths = pathsOf(settings.dir)
  const spec = masterSpec(programs, settings.dir)

  /**
   * The port it was made with (recorded, or in the configuration of a server made before the record), or
   * `settings.port` for one made now; recorded either way.
   */
  async function portOf(): Promise<number> {
    const recorded = existsSync(paths.record)
      ? (JSON.parse(await readFile(paths.record, 'utf8')) as { port?: number }).port
      : undefined
    if (recorded !== undefined) return recorded
    const configured = /^port = (\d+)$/m.exec((await readFile(paths.conf, 'utf8').catch(() => '')) ?? '')?.[1]
    const port = configured === undefined ? settings.port : Number(configured)
    await writeFile(paths.record, `${JSON.stringify({ port })}\n`, { mode: 0o644 })
    return port
  }

  /**
   * Makes the data directory and system tables once, as the `mysql` user's. One an installer left half made (no
   * mark of completion) is moved aside, never deleted, and made again.
   */
  async function initialise(user: { uid: number; gid: number }): Promise<void> {
    await mkdir(paths.run, { recursive: true })
    await chown(paths.run, user.uid, user.gid)
    await chmod(paths.run, 0o750)
    if (existsSync(paths.made)) return
    if (existsSync(paths.data)) await rename(paths.data, `${paths.data}.incomplete-${Date.now()}`)
    await mkdir(paths.data, { recursive: true, mode: 0o700 })
    await chown(paths.data, user.uid, user.gid)
    await runChecked([
      programs.installDb,
      `--defaults-file=${paths.conf}`,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
    ])
    await writeFile(paths.made, `${new Date().toISOString()}\n`, { mode: 0o600 })
  }

  /** Whether the administrator in `admin.json` logs in (a data directory made again forgot it). */
  async function administratorWorks(port: number): Promise<boolean> {
    if (!existsSync(paths.admin)) return false
    const admin = JSON.parse(await readFile(paths.admin, 'utf8')) as { username: string; password: string }
    try {
      const connection = await mysql.createConnection({
        host: '127.0.0.1',
        port,
        user: admin.username,
        password: admin.password,
        connectTimeout: 5_000,
      })
      await connection.end()
      return true
    } catch {
      return false
    }
  }

  /**
   * The administrator the panel's operations run as, made (or given a new password) over the root socket (root logs
   * in by its Unix identity only): every privilege on `*.*` with grant option, from 127.0.0.1 alone, its password in
   * a root-only file.
   */
  async function ensureAdministrator(port: number): Promise<void> {
    if (await administratorWorks(port)) return
    // base64url: nothing in it needs escaping inside single quotes.
    const password = randomBytes(24).toString('base64url')
    const statement = `CREATE USER IF NOT EXISTS 'plinth_admin'@'127.0.0.1' IDENTIFIED BY '${password}';
ALTER USER 'plinth_admin'@'127.0.0.1' IDENTIFIED BY '${password}';
GRANT ALL PRIVILEGES ON *.* TO 'plinth_admin'@'127.0.0.1' WITH GRANT OPTION;
`
    // The statement goes on stdin, never in argv where `ps` shows it.
    await runChecked([programs.client, `--socket=${paths.socket}`, '--user=root', '--batch'], statement)
    await writeFile(paths.admin, `${JSON.stringify({ username: 'plinth_admin', password })}\n`, {
      mode: 0o600,
    })
  }

  return {
    async start() {
      const user = mysqlUser()
      if (!user) throw new Error('The node has MariaDB’s server but no mysql user to run it as')
      await mkdir(settings.dir, { recursive: true, mode: 0o711 })
      checkPassage(settings.dir)
      const port = await portOf()
      const wanted = config(settings.dir, port)
      const current = await readFile(paths.conf, 'utf8').catch(() => null)
      await writeFile(paths.conf, wanted, { mode: 0o644 })
      const pid = runningMaster(spec)
      // A server running with another configuration (an upgrade of the node changed it) starts again with this one.
      if (pid !== null && current !== wanted) await stopMaster(spec, pid)
      if (pid === null || current !== wanted) {
        await initialise(user)
        await startMaster(spec)
      }
      await ensureAdministrator(port)
      const version = /Ver (\S+)/.exec(
        await new Response(Bun.spawn([programs.server, '--version'], { stdout: 'pipe' }).stdout).text(),
      )?.[1]
      return { version: version?.replace(/-MariaDB.*$/, '') ?? 'unknown', port }
    },
    running: () => runningMaster(spec) !== null,
    async stop() {
      const pid = runningMaster(spec)
      if (pid !== null) await stopMaster(spec, pid)
    },
    async access() {
      const admin = JSON.parse(await readFile(paths.admin, 'utf8')) as { username: string; password: string }
      return { host: '127.0.0.1', port: await portOf(), username: admin.username, password: admin.password }
    },
  }
}

/** The part of a failure worth an operator's eyes: MariaDB's `[ERROR]` lines when it said some, else the message's end. */
export function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const errors = message.split('\n').filter((line) => line.includes('[ERROR]'))
  const reason = errors.length > 0 ? errors.join('\n') : message
  return reason.length > 500 ? `…${reason.slice(-500)}` : reason
}
