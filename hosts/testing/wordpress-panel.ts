// What the backups' end-to-end tests and WordPress's clone test share: a panel whose local node serves with this
// machine's nginx and PHP-FPM, this machine's MariaDB registered as its database server, and WordPress sites made
// on it through the API. Node side: the tests that use it run once, not in both store halves.

import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Connection } from 'mysql2/promise'
import type { PluginDefinition } from '../../core/host.ts'
import { waitFor } from '../../core/testing/async.ts'
import type { TestPanel } from '../../core/testing/create-test-panel.ts'
import { freePort } from '../../core/testing/free-port.ts'
import { removeNodeLeftovers } from './node-leftovers.ts'
import { createTestPanel } from './test-panel.ts'

/** A started panel serving WordPress sites through its local node, with the MariaDB they keep their posts in. */
export interface WordPressPanel {
  readonly tp: TestPanel
  /** A staff token. */
  readonly token: string
  /** This machine's MariaDB as root, to read and change the sites' databases beside the panel. */
  readonly root: Connection
  /** The panel's temporary folder (the test may keep its own files in it: it goes with the panel). */
  readonly folder: string
  /** Where the local node keeps its sites. */
  readonly sitesDir: string
  /** The port the sites' nginx answers plain http on. */
  readonly httpPort: number
  /** A WordPress site of `customerId` at `domain`, made and its creation finished; with its database's real name. */
  newWordPressSite(
    customerId: string,
    name: string,
    domain: string,
  ): Promise<{ siteId: string; databaseName: string }>
  /** Closes the panel, stops what its node left running (nginx, PHP-FPM, the sites' users) and removes its files. */
  close(): Promise<void>
}

const mariadb = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')

/**
 * Starts the panel (the standard plugins and `plugins`, quick jobs and events), registers MariaDB as `mariadb-<tag>`
 * and waits for the local node to serve. `prefix` names its temporary folder.
 */
export async function startWordPressPanel(options: {
  readonly prefix: string
  readonly tag: string
  readonly plugins?: readonly PluginDefinition[]
}): Promise<WordPressPanel> {
  const folder = mkdtempSync(join(tmpdir(), options.prefix))
  // nginx's workers and the sites' users pass through to the sites' homes.
  chmodSync(folder, 0o711)
  const sitesDir = join(folder, 'sites')
  const httpPort = freePort()
  const credentials = {
    host: mariadb.hostname,
    port: Number(mariadb.port || 3306),
    username: decodeURIComponent(mariadb.username) || 'root',
    password: decodeURIComponent(mariadb.password),
  }
  // Loaded only by the tests that serve WordPress.
  const mysql = (await import('mysql2/promise')).default
  const { nodesPlugin } = await import('../../plugins/nodes/index.ts')
  const root = await mysql.createConnection({
    host: credentials.host,
    port: credentials.port,
    user: credentials.username,
    password: credentials.password,
  })
  const tp = await createTestPanel({
    plugins: [
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort, httpsPort: freePort() },
      }),
      ...(options.plugins ?? []),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  const token = await tp.token()
  const call = async <T>(method: string, path: string, body?: unknown) => {
    const response = await tp.request(method, `/api/v1${path}`, { token, body })
    const text = await response.text()
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T }
  }
  const server = await call('POST', '/database-servers', {
    name: `mariadb-${options.tag}`,
    engine: 'mariadb',
    ...credentials,
  })
  if (server.status !== 201) throw new Error(`MariaDB not registered: ${JSON.stringify(server.body)}`)
  await waitFor('the local node to serve', async () => {
    const nodes = await call<{ items: { agent: { capabilities: { mode: string } | null } }[] }>(
      'GET',
      '/nodes',
    )
    if (nodes.body.items[0]?.agent.capabilities?.mode === 'serving') return true
    await Bun.sleep(50)
    return null
  })

  return {
    tp,
    token,
    root,
    folder,
    sitesDir,
    httpPort,
    async newWordPressSite(customerId, name, domain) {
      const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
        customerId,
        name,
        type: 'wordpress',
        domain,
      })
      if (site.status !== 201) throw new Error(`site not made: ${JSON.stringify(site.body)}`)
      const job = await waitFor(
        `job ${site.body.jobId}`,
        async () => {
          const read = (await call<{ status: string; error: unknown }>('GET', `/jobs/${site.body.jobId}`))
            .body
          if (read.status === 'succeeded' || read.status === 'failed') return read
          await Bun.sleep(100)
          return null
        },
        300_000,
      )
      if (job.status !== 'succeeded') throw new Error(`site not made: ${JSON.stringify(job.error)}`)
      const databases = await call<{ items: { name: string; siteId: string | null }[] }>(
        'GET',
        `/databases?customerId=${customerId}`,
      )
      const databaseName = databases.body.items.find((database) => database.siteId === site.body.id)?.name
      if (!databaseName) throw new Error(`no database of ${site.body.id}`)
      return { siteId: site.body.id, databaseName }
    },
    async close() {
      await tp.panel.close()
      await root.end()
      removeNodeLeftovers(sitesDir)
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
