// The installation the console's end-to-end test walks through: the real server (`hosts/bun/main.ts`, as
// `npm start` runs it) on this run's store engine, its local node serving sites with the machine's nginx, PHP-FPM
// and Debian's WordPress, the machine's MariaDB registered as its database server, and a platform staff user made
// with the CLI. Everything it made, on the machine too, goes in `stop()`.

import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import {
  apiClient,
  createProcessTracker,
  freePort,
  removeNodeLeftovers,
  type Standalone,
  waitFor,
} from '../../../hosts/testing/index.ts'

/** The machine's MariaDB, as .ci/ensure-mariadb leaves it: root without a password on loopback. */
const mariadbUrl = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')

/** A JSON call to the panel with the staff token: status and parsed body. */
export type ApiCall = ReturnType<typeof apiClient>

/** The running installation. */
export interface ConsoleStack {
  /** The panel's address, `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly port: number
  /** Where the local node's nginx serves sites (plain HTTP, by `Host`). */
  readonly sitesHttpPort: number
  /** The platform staff user the CLI made: the operator who signs in. */
  readonly operator: { readonly email: string; readonly password: string }
  /** The API with a `*` token of the operator, for the setup an operator did before and proofs from outside. */
  readonly call: ApiCall
  /** MariaDB databases and logins the test learnt of, dropped in `stop()` whatever the panel managed to do. */
  remember(mariadbName: string): void
  /** Stops the server, the node's nginx and PHP-FPM, removes the sites' Unix users and the MariaDB leftovers. */
  stop(): Promise<void>
}

/** Options of {@link startConsoleStack}. */
export interface ConsoleStackOptions {
  /** Prefix of the temporary folders. Default `plinth-console-e2e-`. */
  readonly prefix?: string
}

const operator = { email: 'operator@plinth.test', password: 'operator-pass-12345' }

/** Starts the installation and does the setup an operator does once, before anyone uses the console. */
export async function startConsoleStack(options: ConsoleStackOptions = {}): Promise<ConsoleStack> {
  const prefix = options.prefix ?? 'plinth-console-e2e-'
  const tracker = createProcessTracker(prefix)
  const dataDir = tracker.tempDataDir()
  const nodeFolder = mkdtempSync(join(tmpdir(), `${prefix}node-`))
  // nginx's workers and the sites' users pass through to the sites' homes.
  chmodSync(nodeFolder, 0o711)
  const sitesDir = join(nodeFolder, 'sites')
  const sitesHttpPort = freePort()
  const remembered = new Set<string>()
  let server: Standalone | undefined
  let call: ApiCall | undefined

  const stop = async () => {
    // The names of what the panel made on MariaDB, asked while it still answers.
    if (call) {
      for (const path of ['/databases', '/database-users']) {
        const answer = await call<{ items: { name?: string; username?: string }[] }>(
          'GET',
          `${path}?limit=100`,
        ).catch(() => null)
        for (const item of answer?.body?.items ?? []) {
          const name = item.username ?? item.name
          if (name) remembered.add(name)
        }
      }
    }
    if (server && server.process.exitCode === null) {
      server.process.kill('SIGTERM')
      await Promise.race([server.process.exited, Bun.sleep(10_000)])
    }
    await tracker.cleanup()
    // The node's nginx and PHP-FPM outlive the panel, as a node's do: stopped here, with the sites' users.
    removeNodeLeftovers(sitesDir)
    rmSync(nodeFolder, { recursive: true, force: true })
    if (remembered.size > 0) await dropFromMariadb([...remembered])
  }

  try {
    server = await tracker.startStandalone(dataDir, {
      LOCAL_SITES: 'serve',
      SITES_DATA_DIR: sitesDir,
      SITES_HTTP_PORT: String(sitesHttpPort),
      SITES_HTTPS_PORT: String(freePort()),
    })
    // Setup before anyone signs in: the first platform staff user, made on the server's machine with the CLI.
    const admin = await tracker.runCli(dataDir, [
      'admin',
      'create',
      '--email',
      operator.email,
      '--password',
      operator.password,
    ])
    if (admin.exitCode !== 0) throw new Error(`admin create failed: ${admin.stderr}`)
    const minted = await tracker.runCli(dataDir, [
      'token',
      'create',
      '--email',
      operator.email,
      '--scopes',
      '*',
    ])
    if (minted.exitCode !== 0) throw new Error(`token create failed: ${minted.stderr}`)
    call = apiClient(server, minted.stdout.trimEnd().split('\n').at(-1) ?? '')
    const api = call
    // Setup: the database server sites' databases go on (the machine's MariaDB), registered through the API.
    const registered = await api('POST', '/database-servers', {
      name: 'mariadb-1',
      engine: 'mariadb',
      host: mariadbUrl.hostname,
      port: Number(mariadbUrl.port || 3306),
      username: decodeURIComponent(mariadbUrl.username) || 'root',
      password: decodeURIComponent(mariadbUrl.password),
    })
    if (registered.status !== 201)
      throw new Error(
        `The machine's MariaDB at ${mariadbUrl.host} could not be registered (run .ci/ensure-mariadb): ${JSON.stringify(registered.body)}`,
      )
    // The local node reports what it found shortly after the start; a node that only lays out files means the
    // machine lacks nginx, PHP-FPM or WordPress, and the test says so rather than testing less.
    const mode = await waitFor(
      'the local node to report its capabilities',
      async () => {
        const nodes = await api<{ items: { agent: { capabilities: { mode: string } | null } }[] }>(
          'GET',
          '/nodes',
        )
        const found = nodes.body.items[0]?.agent.capabilities?.mode
        if (!found) await Bun.sleep(50)
        return found
      },
      30_000,
    )
    if (mode !== 'serving')
      throw new Error(
        `The local node does not serve sites (mode ${mode}): this machine lacks nginx, PHP-FPM or WordPress. Run .ci/ensure-site-stack as root.`,
      )
    return {
      url: server.url,
      port: Number(new URL(server.url).port),
      sitesHttpPort,
      operator,
      call: api,
      remember: (name) => void remembered.add(name),
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Drops the databases and the logins (every host they have) named `names` from the machine's MariaDB. */
async function dropFromMariadb(names: readonly string[]): Promise<void> {
  const root = await mysql.createConnection({
    host: mariadbUrl.hostname,
    port: Number(mariadbUrl.port || 3306),
    user: decodeURIComponent(mariadbUrl.username) || 'root',
    password: decodeURIComponent(mariadbUrl.password),
  })
  try {
    for (const name of names) await root.query(`DROP DATABASE IF EXISTS \`${name.replaceAll('`', '')}\``)
    const [logins] = await root.query<mysql.RowDataPacket[]>(
      'SELECT User AS name, Host AS host FROM mysql.user WHERE User IN (?)',
      [names],
    )
    for (const login of logins) await root.query('DROP USER IF EXISTS ?@?', [login.name, login.host])
  } finally {
    await root.end()
  }
}
