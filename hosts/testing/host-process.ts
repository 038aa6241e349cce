// Test helpers that spawn the real hosts (hosts/bun/main.ts, hosts/cli/main.ts, hosts/agent/main.ts) and clean up
// after them.

import { expect } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort } from '../../core/testing/free-port.ts'
import {
  createTestDatabase,
  postgresSettingsFor,
  testDatabaseSettings,
} from '../../core/testing/test-store.ts'
import { removeNodeLeftovers } from './node-leftovers.ts'

export { createTestDatabase, postgresSettingsFor, testDatabaseSettings }

/** The repository root: the working directory of every spawned host. */
export const repoRoot = join(import.meta.dir, '..', '..')

/** The repository's own bun, which runs the spawned hosts. */
export const bunBin = join(repoRoot, 'node_modules', '.bin', 'bun')

/** What an API token looks like when printed. */
export const tokenPattern = /^plinth_[0-9A-Za-z]{36}$/

/** Data folders whose hosts keep the embedded SQLite store whatever engine the run tests (backup, restore). */
const sqliteOnly = new Set<string>()

/** The environment of a spawned host: this process's, without settings that would change what is tested. */
export function hostEnv(
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const name of [
    'PORT',
    'HOST',
    'DATA_DIR',
    'BODY_LIMIT_BYTES',
    'PLINTH_SECRET',
    'PLINTH_CONFIG',
    'DATABASE_URL',
    'DATABASE_SCHEMA',
    'DATABASE_POOL_SIZE',
    'LOCAL_SITES',
    'SITES_HTTP_PORT',
    'SITES_HTTPS_PORT',
    'SITES_DATA_DIR',
    'NODE_DATABASE_PORT',
  ])
    delete env[name]
  // On a PostgreSQL test run, the hosts keep the installation in a schema of its own for this DATA_DIR.
  const database = sqliteOnly.has(dataDir) ? {} : testDatabaseSettings(dataDir)
  // The local node lays out files only: serving would start nginx on port 80 for every test's panel. Tests of
  // serving run the node agent, or say LOCAL_SITES=serve with ports of their own; likewise the node's own MariaDB
  // (a port of its own, made in seconds), off unless a test gives NODE_DATABASE_PORT.
  return { ...env, DATA_DIR: dataDir, LOCAL_SITES: 'files', NODE_DATABASE_PORT: 'off', ...database, ...extra }
}

/** Everything a stream has produced so far, and a way to wait for a pattern in it. */
export interface Transcript {
  readonly text: string
  /** Resolves when the stream is exhausted. */
  readonly done: Promise<void>
  /** The first match of `pattern`, as soon as the stream has produced it; rejects if the stream ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>
}

/** Reads `stream` to its end in the background, keeping all of it as text. */
export function transcript(stream: ReadableStream<Uint8Array>): Transcript {
  let text = ''
  let ended = false
  let wake: () => void = () => {}
  let changed = new Promise<void>((resolve) => {
    wake = resolve
  })
  const notify = () => {
    wake()
    changed = new Promise<void>((resolve) => {
      wake = resolve
    })
  }
  const done = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true })
      notify()
    }
    ended = true
    notify()
  })()
  return {
    get text() {
      return text
    },
    done,
    async waitFor(pattern) {
      for (;;) {
        const match = pattern.exec(text)
        if (match) return match
        if (ended) throw new Error(`The output ended without ${pattern}:\n${text}`)
        await changed
      }
    },
  }
}

/** A spawned host process, with piped output. */
export type HostProcess = Subprocess<'ignore', 'pipe', 'pipe'>

/** What a CLI run ended with. */
export interface CliResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/** A spawned `bun hosts/bun/main.ts`. */
export interface Standalone {
  readonly url: string
  readonly process: HostProcess
  /** Its stdout, drained for the server's whole life so it never blocks writing to a full pipe. */
  readonly stdout: Transcript
  /** Its stderr, drained likewise. */
  readonly stderr: Transcript
}

/** A spawned node agent (`npm run agent`), connected to its panel. */
export interface TestAgent {
  readonly process: HostProcess
  /** Its AGENT_DATA_DIR: the node's sites, nginx and PHP-FPM. */
  readonly dataDir: string
  readonly httpPort: number
  readonly httpsPort: number
  /** Its stdout (JSON lines), drained for its whole life. */
  readonly stdout: Transcript
  readonly stderr: Transcript
  /** What the node's nginx answers for `domain` at `path` (redirects are answers, not followed). */
  fromNode(domain: string, path?: string, init?: RequestInit): Promise<Response>
  /** SIGTERMs it and waits for it to exit (its nginx and PHP-FPM keep serving, as a node's do, until cleanup). */
  stop(): Promise<void>
}

/** Options of {@link ProcessTracker.startAgent}. */
export interface TestAgentOptions {
  /** Its AGENT_DATA_DIR; default a fresh temporary folder. */
  readonly dataDir?: string
  /** SITES_HTTP_PORT; default a free port. */
  readonly httpPort?: number
  /**
   * More of its environment (SFTP_PORT, AGENT_REPORT_SECONDS, ...). The node runs no MariaDB of its own unless it
   * gives NODE_DATABASE_PORT (the kit sets it `off`: a server of its own takes seconds to make).
   */
  readonly env?: Record<string, string>
  /** Leads a process group of its own, which a test can kill whole. */
  readonly ownGroup?: boolean
}

/** Temporary data folders and spawned hosts of one test file, and the way to get rid of them all. */
export interface ProcessTracker {
  /**
   * A fresh, empty temporary folder, removed at cleanup. Hosts started on it use this run's engine, or with
   * `engine: 'sqlite'` the embedded store in it always (what only SQLite has: backup, restore, plinth.sqlite).
   */
  tempDataDir(options?: { readonly engine?: 'sqlite' }): string
  /**
   * Spawns `bun ...args` in the repository root with piped output; killed at cleanup if still running. With
   * `ownGroup` it leads a session and process group of its own (as a service manager starts it): a test can kill
   * the whole group (`process.kill(-pid, 'SIGKILL')`).
   */
  spawnTracked(
    args: readonly string[],
    env: Record<string, string | undefined>,
    options?: { readonly ownGroup?: boolean },
  ): HostProcess
  /** Runs `bun hosts/cli/main.ts ...args` on `dataDir` (with `extra` settings); returns its exit code and output. */
  runCli(dataDir: string, args: readonly string[], extra?: Record<string, string>): Promise<CliResult>
  /**
   * Spawns the real entry point (`entry`, default `hosts/bun/main.ts`; a test host such as
   * `hosts/testing/slow-node-host.ts` must print the same line) on a free port and waits for the line that says
   * where it listens.
   */
  startStandalone(dataDir: string, extra?: Record<string, string>, entry?: string): Promise<Standalone>
  /**
   * Spawns the node agent for the node whose agent token is `token`, and waits until it says it is connected. At
   * cleanup its masters are stopped and its sites' Unix users removed with its folder.
   */
  startAgent(panel: Pick<Standalone, 'url'>, token: string, options?: TestAgentOptions): Promise<TestAgent>
  /** SIGKILLs every spawned host still running, waits for them all to exit, then removes the temporary folders. */
  cleanup(): Promise<void>
}

/** A tracker for one test file; wire its `cleanup` into that file's `afterAll`. `prefix` names its temporary folders. */
export function createProcessTracker(prefix: string): ProcessTracker {
  const tempDirs: string[] = []
  const processes = new Set<Subprocess>()

  const tempDataDir = (options: { readonly engine?: 'sqlite' } = {}): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    tempDirs.push(dir)
    if (options.engine === 'sqlite') sqliteOnly.add(dir)
    return dir
  }

  const spawnTracked = (
    args: readonly string[],
    env: Record<string, string | undefined>,
    options: { readonly ownGroup?: boolean } = {},
  ): HostProcess => {
    // setsid(1) run by a process that leads no group makes the session in place: its pid is bun's.
    const proc = Bun.spawn([...(options.ownGroup ? ['setsid'] : []), bunBin, ...args], {
      cwd: repoRoot,
      env,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    processes.add(proc)
    return proc
  }

  const runCli = async (
    dataDir: string,
    args: readonly string[],
    extra: Record<string, string> = {},
  ): Promise<CliResult> => {
    const proc = spawnTracked(['hosts/cli/main.ts', ...args], hostEnv(dataDir, extra))
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ])
    return { exitCode, stdout, stderr }
  }

  const startStandalone = async (
    dataDir: string,
    extra: Record<string, string> = {},
    entry = 'hosts/bun/main.ts',
  ): Promise<Standalone> => {
    const proc = spawnTracked([entry], hostEnv(dataDir, { PORT: '0', ...extra }))
    const stdout = transcript(proc.stdout)
    const stderr = transcript(proc.stderr)
    try {
      const [, url = ''] = await stdout.waitFor(/Plinth panel listening on (http:\/\/\S+)/)
      return { url, process: proc, stdout, stderr }
    } catch (error) {
      await stderr.done
      throw new Error(`${(error as Error).message}\n${stderr.text}`)
    }
  }

  const agentDirs: string[] = []
  const startAgent = async (
    panel: Pick<Standalone, 'url'>,
    token: string,
    options: TestAgentOptions = {},
  ): Promise<TestAgent> => {
    const dataDir = options.dataDir ?? tempDataDir()
    agentDirs.push(dataDir)
    const httpPort = options.httpPort ?? freePort()
    const httpsPort = freePort()
    const proc = spawnTracked(
      ['hosts/agent/main.ts'],
      {
        ...process.env,
        PANEL_URL: panel.url,
        AGENT_TOKEN: token,
        AGENT_DATA_DIR: dataDir,
        SITES_HTTP_PORT: String(httpPort),
        SITES_HTTPS_PORT: String(httpsPort),
        NODE_DATABASE_PORT: 'off',
        // Its own SFTP port, not the default 2222 another agent on the machine (a test's, an operator's) may hold.
        SFTP_PORT: String(freePort()),
        SFTP_LISTEN: '127.0.0.1',
        ...options.env,
      },
      { ownGroup: options.ownGroup },
    )
    const stdout = transcript(proc.stdout)
    const stderr = transcript(proc.stderr)
    try {
      await stdout.waitFor(/Plinth node agent connected/)
    } catch (error) {
      await stderr.done
      throw new Error(`${(error as Error).message}\n${stderr.text}`)
    }
    return {
      process: proc,
      dataDir,
      httpPort,
      httpsPort,
      stdout,
      stderr,
      fromNode: (domain, path = '/', init = {}) => {
        const headers = new Headers(init.headers)
        headers.set('host', domain)
        return fetch(`http://127.0.0.1:${httpPort}${path}`, { ...init, headers, redirect: 'manual' })
      },
      async stop() {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM')
        await proc.exited
      },
    }
  }

  const cleanup = async (): Promise<void> => {
    for (const proc of processes) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
      await proc.exited
    }
    // The agents' nginx and PHP-FPM outlive them, as a node's do; their sites' users go with their folders.
    for (const dir of agentDirs) removeNodeLeftovers(dir)
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
  }

  return { tempDataDir, spawnTracked, runCli, startStandalone, startAgent, cleanup }
}

/** SIGKILLs a spawned server and waits until it is gone: no shutdown code of its runs. */
export async function killHard(server: Standalone): Promise<void> {
  server.process.kill('SIGKILL')
  await server.process.exited
  expect(server.process.signalCode).toBe('SIGKILL')
}

/** Makes a platform staff user with the CLI on `dataDir` (`runCli` of a tracker) and answers a `*` token of theirs. */
export async function cliStaffToken(
  runCli: ProcessTracker['runCli'],
  dataDir: string,
  email = 'staff@example.com',
): Promise<string> {
  const admin = await runCli(dataDir, [
    'admin',
    'create',
    '--email',
    email,
    '--password',
    'correct horse battery',
  ])
  expect(admin.exitCode).toBe(0)
  const created = await runCli(dataDir, ['token', 'create', '--email', email, '--scopes', '*'])
  expect(created.exitCode).toBe(0)
  const token = created.stdout.trimEnd().split('\n').at(-1) ?? ''
  expect(token).toMatch(tokenPattern)
  return token
}

/** A client of a spawned server with one token: `call(method, path, body?)` answers the status and the parsed body. */
export function apiClient(server: Pick<Standalone, 'url'>, token: string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    // A 204 has no body.
    const text = await response.text()
    return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T }
  }
}
