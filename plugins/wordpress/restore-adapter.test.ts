// WordPress's restore adapter on two real WordPress sites of one customer (a test panel whose local node serves with
// this machine's nginx, PHP-FPM, Debian's WordPress and MariaDB), without the backups plugin: its database mapping
// from the old site's WordPress database to the new site's, and, the old site's database loaded into the new one as a
// clone's restore does, the move of WordPress's addresses to the new domain, run in a job as the backups plugin runs
// it, seen by visitors of the new site and in the audit log.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise'
import { type Db, definePlugin, JobAttemptFailure, type JobRun } from '../../core/index.ts'
import {
  createTestPanel,
  freePort,
  removeNodeLeftovers,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { ClonedSite, RestoreAdapter } from '../backups/contract.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { databasesPlugin } from '../databases/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { wordpressPlugin } from './index.ts'
import type { WordPressTables } from './migrations.ts'
import { wordpressRestoreAdapter } from './restore-adapter.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-wp-clone-'))
const sitesDir = join(folder, 'sites')
// nginx's workers and the sites' users pass through to the sites' homes.
chmodSync(folder, 0o711)
const httpPort = freePort()
const url = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')
const tag = crypto.randomUUID().slice(0, 8)

let tp: TestPanel
let token: string
let root: Connection
let adapter: RestoreAdapter
let db: Db
let customerId = ''
const made: { id: string; domain: string; databaseId: string; database: string }[] = []

/** The job the test runs the adapter in, as the backups plugin's restore job would. */
const cloneJobKind = 'clone_test.run'
type CloneWork = (job: JobRun) => Promise<Record<string, unknown>>
const works = new Map<string, CloneWork>()
let enqueue: (work: CloneWork, subject: string) => Promise<string>

/** Makes the adapter the wordpress plugin registers for backups, and a job kind to run it in. */
const cloneTestPlugin = definePlugin({
  name: 'clone-test',
  version: '1.0.0',
  description: 'Runs WordPress’s restore adapter in jobs, for the tests.',
  requires: ['wordpress', 'nodes'],
  setup(context) {
    adapter = wordpressRestoreAdapter(context)
    db = context.db
    enqueue = async (work, subject) => {
      const key = crypto.randomUUID()
      works.set(key, work)
      return context.transaction((trx) =>
        context.enqueueJob(trx, {
          kind: cloneJobKind,
          customerId,
          subject: { type: 'site', id: subject },
          input: { key },
        }),
      )
    }
  },
  jobs: () => [
    {
      kind: cloneJobKind,
      description: 'Runs a piece of a clone, for the tests.',
      maxAttempts: 1,
      async run(job) {
        const work = works.get(String(job.input.key))
        if (!work) throw new Error('no work')
        return work(job)
      },
    },
  ],
})

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const response = await tp.request(method, `/api/v1${path}`, { token, body })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T }
}

async function finished(jobId: string) {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<{ status: string; error: unknown; result: unknown }>('GET', `/jobs/${jobId}`))
        .body
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(100)
      return null
    },
    180_000,
  )
}

/** Runs `work` in a job of the test's kind; answers the finished job. */
async function inJob(subject: string, work: CloneWork) {
  return finished(await enqueue(work, subject))
}

const clonedSite = (index: number): ClonedSite => {
  const site = made[index]
  if (!site) throw new Error(`no site ${index}`)
  return { id: site.id, customerId, domain: site.domain, nodeId: localNodeId }
}
let localNodeId = ''

/** What the site's nginx answers for `host` at `path`. */
const fromSite = (host: string, path = '/') =>
  fetch(`http://127.0.0.1:${httpPort}${path}`, { redirect: 'manual', headers: { host } })

async function option(database: string, name: string): Promise<string | undefined> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT option_value FROM \`${database}\`.wp_options WHERE option_name = ?`,
    [name],
  )
  return rows[0]?.option_value as string | undefined
}

/** A program's exit, output and errors. */
async function program(argv: string[], stdin?: string) {
  const child = Bun.spawn(argv, {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`${argv[0]} failed: ${stderr}`)
  return stdout
}

beforeAll(async () => {
  root = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  })
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort, httpsPort: freePort() },
      }),
      sitesPlugin({ wordpress: false }),
      databasesPlugin(),
      wordpressPlugin(),
      cloneTestPlugin,
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  expect(
    (
      await call('POST', '/database-servers', {
        name: 'mariadb-1',
        engine: 'mariadb',
        host: url.hostname,
        port: Number(url.port || 3306),
        username: decodeURIComponent(url.username) || 'root',
        password: decodeURIComponent(url.password),
      })
    ).status,
  ).toBe(201)
  localNodeId = await waitFor('the local node to serve', async () => {
    const nodes = await call<{ items: { id: string; agent: { capabilities: { mode: string } | null } }[] }>(
      'GET',
      '/nodes',
    )
    const node = nodes.body.items[0]
    if (node?.agent.capabilities?.mode === 'serving') return node.id
    await Bun.sleep(50)
    return null
  })
  customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
  const jobs: string[] = []
  for (const name of ['old', 'new']) {
    const domain = `${name}-${tag}.example.test`
    const site = await call<{ id: string; jobId: string }>('POST', '/sites', {
      customerId,
      name: `Acme ${name}`,
      type: 'wordpress',
      domain,
    })
    expect(site.status).toBe(201)
    made.push({ id: site.body.id, domain, databaseId: '', database: '' })
    jobs.push(site.body.jobId)
  }
  for (const jobId of jobs) expect(await finished(jobId)).toMatchObject({ status: 'succeeded' })
  const databases = await call<{ items: { id: string; name: string; siteId: string | null }[] }>(
    'GET',
    `/databases?customerId=${customerId}`,
  )
  for (const site of made) {
    const database = databases.body.items.find((each) => each.siteId === site.id)
    site.databaseId = database?.id ?? ''
    site.database = database?.name ?? ''
    expect(site.database).not.toBe('')
  }
}, 300_000)

afterAll(async () => {
  for (const site of made) {
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${site.id}`).catch(() => null)
    if (deleted?.body?.jobId) await finished(deleted.body.jobId).catch(() => {})
  }
  await waitFor(
    'the sites’ databases to be dropped',
    async () => {
      const left = await call<{ items: unknown[] }>('GET', `/databases?customerId=${customerId}`)
      if (left.body.items.length === 0) return true
      await Bun.sleep(200)
      return null
    },
    60_000,
  ).catch(() => {})
  await tp?.panel.close()
  removeNodeLeftovers(sitesDir)
  for (const site of made)
    if (site.database) await root?.query(`DROP DATABASE IF EXISTS \`${site.database}\``).catch(() => {})
  await root?.end()
  rmSync(folder, { recursive: true, force: true })
}, 120_000)

describe('WordPress’s restore adapter', () => {
  test('keeps the clone’s own wp-config.php', () => {
    expect(adapter.type).toBe('wordpress')
    expect(adapter.keepOnClone).toEqual(['/htdocs/wp-config.php'])
  })

  test('maps the old site’s WordPress database to the new site’s, and no other', async () => {
    const [old, clone] = [made[0], made[1]]
    const job = await inJob(clone?.id ?? '', async (run) => ({
      own: await adapter.databaseFor(run, clonedSite(0), clonedSite(1), old?.databaseId ?? ''),
      other: await adapter.databaseFor(run, clonedSite(0), clonedSite(1), 'db_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'),
      // The new site's own database is not the old site's.
      backwards: await adapter.databaseFor(run, clonedSite(0), clonedSite(1), clone?.databaseId ?? ''),
    }))
    expect(job).toMatchObject({
      status: 'succeeded',
      result: { own: clone?.databaseId, other: null, backwards: null },
    })
  })

  test('after the old site’s database is loaded into the new one, moves WordPress’s addresses to the new domain', async () => {
    const [old, clone] = [made[0] as (typeof made)[0], made[1] as (typeof made)[0]]
    const oldUrl = `http://${old.domain}`
    const secureOld = `https://${old.domain}`
    // The old site's content: a post linking to itself over both schemes, and a serialized option.
    await root.query(`UPDATE \`${old.database}\`.wp_posts SET post_content = ? WHERE ID = 1`, [
      `<a href="${oldUrl}/about/">About</a> <img src="${secureOld}/logo.png">`,
    ])
    const serialized = `a:1:{s:3:"url";s:${oldUrl.length + 1}:"${oldUrl}/";}`
    await root.query(
      `INSERT INTO \`${old.database}\`.wp_options (option_name, option_value, autoload) VALUES ('plinth_clone_links', ?, 'no')`,
      [serialized],
    )
    // As a restore loads a dump: the new site's tables become the old site's.
    const connection = [
      '--host',
      url.hostname,
      '--port',
      url.port || '3306',
      '--user',
      url.username || 'root',
    ]
    const dumped = await program(['mariadb-dump', ...connection, '--single-transaction', old.database])
    await program(['mariadb', ...connection, clone.database], dumped)
    expect(await option(clone.database, 'home')).toBe(oldUrl)

    const job = await inJob(clone.id, async (run) => {
      await adapter.cloned?.(run, clonedSite(0), clonedSite(1))
      return {}
    })
    expect(job).toMatchObject({ status: 'succeeded' })

    const newUrl = `http://${clone.domain}`
    expect(await option(clone.database, 'home')).toBe(newUrl)
    expect(await option(clone.database, 'siteurl')).toBe(newUrl)
    expect(await option(clone.database, 'plinth_clone_links')).toBe(
      `a:1:{s:3:"url";s:${newUrl.length + 1}:"${newUrl}/";}`,
    )
    const [posts] = await root.query<RowDataPacket[]>(
      `SELECT post_content FROM \`${clone.database}\`.wp_posts WHERE ID = 1`,
    )
    expect(posts[0]?.post_content).toBe(
      `<a href="${newUrl}/about/">About</a> <img src="https://${clone.domain}/logo.png">`,
    )
    // The old site is left as it was.
    expect(await option(old.database, 'home')).toBe(oldUrl)
    // Visitors of the new site see its own addresses (the post in full on its own page).
    const page = await (await fromSite(clone.domain, '/?p=1')).text()
    expect(page.includes(`href="${newUrl}/about/"`)).toBe(true)
    expect(page.includes(old.domain)).toBe(false)
    // Audited as the search-replace it is, on the new site.
    const audit = await call<{ items: { subject: { id: string }; details: Record<string, unknown> }[] }>(
      'GET',
      '/audit?action=wordpress.search_replace',
    )
    const entries = audit.body.items.filter((entry) => entry.subject.id === clone.id)
    expect(entries.map((entry) => entry.details.from).sort()).toEqual([oldUrl, secureOld])
    expect(entries.every((entry) => entry.details.sourceSiteId === old.id)).toBe(true)
  })

  test('a new site that is no WordPress site fails outright; one whose database is not made yet is tried again', async () => {
    const clone = made[1] as (typeof made)[0]
    const pending = 'site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'
    // A WordPress site being provisioned: its row is there, its database not yet.
    await db
      .withTables<WordPressTables>()
      .insertInto('wordpress_sites')
      .values({
        site_id: pending,
        admin_user: 'admin',
        admin_email: 'admin@pending.example.test',
        admin_hash_sealed: null,
        database_id: null,
        database_user_id: null,
        created_at: new Date().toISOString(),
      })
      .execute()
    const job = await inJob(clone.id, async (run) => {
      const outcome = async (to: ClonedSite) => {
        try {
          return await adapter.databaseFor(run, clonedSite(0), to, made[0]?.databaseId ?? '')
        } catch (error) {
          return error instanceof JobAttemptFailure ? 'tried again' : (error as { code?: string }).code
        }
      }
      return {
        unknown: await outcome({ ...clonedSite(1), id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9S8X' }),
        pending: await outcome({ ...clonedSite(1), id: pending }),
      }
    })
    expect(job).toMatchObject({
      status: 'succeeded',
      result: { unknown: 'not_a_wordpress_site', pending: 'tried again' },
    })
  })
})
