// The databases plugin's temporary logins for backups, through its service on a test panel, on the machine's real
// MariaDB and PostgreSQL (added as staff's servers) and the local node's own MariaDB (reached through the node): a
// readonly login dumps with `mariadb-dump --single-transaction` and `pg_dump` and cannot write, a readwrite one loads
// a dump back, a scratch database is empty and goes with its release, a release repeated changes nothing, the
// customer's other databases stay out of reach, and a node that cannot reach the server gets no login.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import postgres from 'postgres'
import { type Db, definePlugin } from '../../core/index.ts'
import {
  createTestPanel,
  freePort,
  removeNodeLeftovers,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { siteTypes } from '../sites/contract.ts'
import { checkJobRequest } from './check-schedule.ts'
import {
  type Database,
  type DatabaseBackupAccess,
  databaseBackupAccess,
  type LeasedLogin,
  type TemporaryLogin,
} from './contract.ts'
import type { DatabaseEngine, EngineName, ServerAccess } from './engines/engine.ts'
import { mariadbEngine } from './engines/mariadb.ts'
import { postgresqlEngine } from './engines/postgresql.ts'
import { databasesPlugin } from './index.ts'
import { customerPrefixOf } from './naming.ts'
import { nodeDatabaseEngine } from './node-servers.ts'
import { madeAtOf, temporaryNameAt } from './temporary-names.ts'
import { temporaryLifetimeMs } from './temporary-sweep.ts'
import {
  mariadbAdmin,
  mariadbAdminOptions,
  postgresqlAdmin,
  requirePasswordsForTenants,
} from './test-servers.ts'

const admins: Record<EngineName, ServerAccess> = { mariadb: mariadbAdmin, postgresql: postgresqlAdmin }
const run = crypto.randomUUID().slice(0, 6)
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-backup-access-'))
// The node's own MariaDB runs as `mysql`, which passes through to its folder under the node's data directory.
chmodSync(dataDir, 0o711)

let tp: TestPanel
let staff: string
let access: DatabaseBackupAccess
/** Starts the periodic check now (the test panel's runs no schedule); answers its job's id. */
let runCheck: () => Promise<string>
/** The engine of the local node's own server, as the panel reaches it: through the node. */
let nodeEngine: () => DatabaseEngine
let db: Db
let customerId = ''
let localNodeId = ''
const leases: LeasedLogin[] = []

/** Keeps the service for the tests, and a site type without an application of its own. */
const testPlugin = definePlugin({
  name: 'backup-access-test',
  version: '1.0.0',
  description: 'Keeps the databases plugin’s backup access for the tests.',
  requires: ['databases', 'sites', 'nodes'],
  setup(context) {
    access = context.use(databaseBackupAccess)
    db = context.db
    runCheck = () => context.transaction((trx) => context.enqueueJob(trx, checkJobRequest))
    nodeEngine = () => nodeDatabaseEngine(context.use(nodeDirectory), localNodeId, 'mariadb')
    context.extensionPoint(siteTypes).add({ name: 'plain', description: 'Plain files.' })
  },
})

async function json<T>(response: Response, status: number): Promise<T> {
  const body = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${body}`)
  return JSON.parse(body) as T
}
const post = (path: string, body: unknown) => tp.request('POST', `/api/v1${path}`, { token: staff, body })
const get = (path: string) => tp.request('GET', `/api/v1${path}`, { token: staff })

async function activeDatabase(body: Record<string, unknown>): Promise<Database> {
  const made = await json<Database>(await post('/databases', { customerId, ...body }), 201)
  return waitFor(
    `database ${made.id}`,
    async () => {
      const now = await json<Database>(await get(`/databases/${made.id}`), 200)
      if (now.status === 'failed') throw new Error(`database ${made.id} failed`)
      if (now.status === 'active') return now
      await Bun.sleep(50)
      return null
    },
    120_000,
  )
}

/** A new site of the customer (on the local node), by its id. */
async function newSite(name: string): Promise<string> {
  const made = await json<{ id: string }>(
    await post('/sites', { customerId, name, type: 'plain', domain: `${name}-${run}.example.test` }),
    201,
  )
  return made.id
}

async function leased(lease: Promise<LeasedLogin>): Promise<LeasedLogin> {
  const made = await lease
  leases.push(made)
  return made
}

/** A client of `login`: runs statements, answers rows. */
interface Client {
  query(statement: string): Promise<Record<string, unknown>[]>
  end(): Promise<void>
}

async function connect(login: TemporaryLogin, database = login.database): Promise<Client> {
  if (login.engine === 'mariadb') {
    const connection = await mysql.createConnection({
      host: login.host,
      port: login.port,
      user: login.username,
      password: login.password,
      database,
      connectTimeout: 5_000,
    })
    return {
      query: async (statement) => (await connection.query(statement))[0] as Record<string, unknown>[],
      end: () => connection.end(),
    }
  }
  const sql = postgres({
    host: login.host,
    port: login.port,
    username: login.username,
    password: login.password,
    database,
    max: 1,
    connect_timeout: 5,
    onnotice: () => {},
  })
  // The first statement opens the connection: a refused login fails here, as MariaDB's does.
  await sql`SELECT 1`
  return {
    query: async (statement) => [...(await sql.unsafe(statement))],
    end: () => sql.end({ timeout: 1 }),
  }
}

/** Whether `login` still logs in to `database`. */
async function logsIn(login: TemporaryLogin, database = login.database): Promise<boolean> {
  try {
    const client = await connect(login, database)
    await client.end()
    return true
  } catch {
    return false
  }
}

/** Runs a client program with the login's password in its environment (never its arguments); answers its output. */
async function program(argv: string[], login: TemporaryLogin, stdin?: string) {
  const child = Bun.spawn(argv, {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, MYSQL_PWD: login.password, PGPASSWORD: login.password },
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** A dump as the backups node takes it: `mariadb-dump --single-transaction`, `pg_dump` without owners or grants. */
async function dump(login: TemporaryLogin): Promise<string> {
  const connection = ['--host', login.host, '--port', String(login.port), '--user', login.username]
  const done =
    login.engine === 'mariadb'
      ? await program(['mariadb-dump', ...connection, '--single-transaction', login.database], login)
      : await program(
          ['pg_dump', ...connection, '--no-owner', '--no-privileges', '--dbname', login.database],
          login,
        )
  if (done.code !== 0) throw new Error(`the dump failed: ${done.stderr}`)
  return done.stdout
}

/**
 * Loads `text` into the login's database as a restore does. A MariaDB dump names the definer of each view, trigger
 * and routine, which only an account with SET USER may give: the load leaves the clauses out (what made them is
 * their definer then).
 */
async function load(login: TemporaryLogin, text: string): Promise<void> {
  const connection = ['--host', login.host, '--port', String(login.port), '--user', login.username]
  const done =
    login.engine === 'mariadb'
      ? await program(
          ['mariadb', ...connection, login.database],
          login,
          text.replace(/DEFINER=`[^`]*`@`[^`]*`/g, ''),
        )
      : await program(
          ['psql', ...connection, '--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '--dbname', login.database],
          login,
          text,
        )
  if (done.code !== 0) throw new Error(`the load failed: ${done.stderr}`)
}

async function tablesOf(login: TemporaryLogin): Promise<string[]> {
  const client = await connect(login)
  try {
    const rows = await client.query(
      login.engine === 'mariadb'
        ? 'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1'
        : "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
    )
    return rows.map((row) => String(row.name))
  } finally {
    await client.end()
  }
}

/** Whether the database `name` exists on the machine's server of `engine`. */
async function existsOnServer(engine: EngineName, name: string): Promise<boolean> {
  if (engine === 'mariadb') {
    const root = await mysql.createConnection(mariadbAdminOptions)
    const [rows] = await root.query('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name])
    await root.end()
    return (rows as unknown[]).length > 0
  }
  const sql = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  const rows = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`
  await sql.end()
  return rows.length > 0
}

beforeAll(async () => {
  await requirePasswordsForTenants()
  tp = await createTestPanel({
    // The local node runs a MariaDB of its own, which the panel reaches only through the node.
    overrides: [
      nodesPlugin({ dataDir }),
      databasesPlugin({ checkIntervalMs: 0, nodeDatabasePort: freePort() }),
    ],
    plugins: [testPlugin],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  staff = await tp.token()
  for (const engine of ['mariadb', 'postgresql'] as const) {
    const admin = admins[engine]
    await json(
      await post('/database-servers', {
        name: `${engine}-${run}`,
        engine,
        host: admin.host,
        port: admin.port,
        username: admin.username,
        password: admin.password,
      }),
      201,
    )
  }
  customerId = (await json<{ id: string }>(await post('/customers', { name: `Backups ${run}` }), 201)).id
  const nodes = await json<{ items: { id: string; driver: string }[] }>(await get('/nodes'), 200)
  localNodeId = nodes.items.find((node) => node.driver === 'local')?.id ?? ''
  // The node's own server is registered once it runs (its first start makes it: seconds).
  await waitFor(
    'the local node’s own database server',
    async () => {
      const servers = await json<{ items: { nodeId: string | null }[] }>(await get('/database-servers'), 200)
      if (servers.items.some((server) => server.nodeId === localNodeId)) return true
      await Bun.sleep(200)
      return null
    },
    120_000,
  )
}, 180_000)

afterAll(async () => {
  for (const lease of leases) await lease.release().catch(() => {})
  // The customer's databases and logins on the staff servers go with their rows' deletion jobs; what a failed test
  // left is dropped here.
  const prefix = `${customerPrefixOf(customerId)}_`
  const root = await mysql.createConnection(mariadbAdminOptions)
  const [rows] = await root.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA')
  for (const { name } of rows as { name: string }[])
    if (name.startsWith(prefix)) await root.query('DROP DATABASE ??', [name])
  await root.end()
  const sql = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  for (const row of await sql`SELECT datname, format('DROP DATABASE %I WITH (FORCE)', datname) AS drop FROM pg_database`)
    if (String(row.datname).startsWith(prefix)) await sql.unsafe(String(row.drop))
  await sql.end()
  await tp.panel.close()
  // The node's own MariaDB outlives the node's process, as it does for a node's sites: stopped here.
  removeNodeLeftovers(dataDir)
}, 60_000)

/** The three kinds of server a site's database may be on. */
const kinds = [
  { kind: 'staff MariaDB', engine: 'mariadb', site: false },
  { kind: 'staff PostgreSQL', engine: 'postgresql', site: true },
  { kind: 'the node’s own MariaDB', engine: 'mariadb', site: true },
] as const

describe.each(kinds)('leases on $kind', ({ kind, engine, site }) => {
  const tag = kind.includes('own') ? 'own' : engine === 'mariadb' ? 'maria' : 'pg'
  let database: Database
  let siteId: string | null = null
  /** The database's own login (the site's application's). */
  let own: TemporaryLogin

  beforeAll(async () => {
    if (site) siteId = await newSite(`shop-${tag}`)
    database = await activeDatabase({ engine, name: `shop_${tag}`, ...(siteId ? { siteId } : {}) })
    if (kind.includes('own')) expect(database.host).toBe('127.0.0.1')
    // The database's own login, as a site's application has one.
    const made = await json<{ id: string; username: string; password: string }>(
      await post('/database-users', {
        customerId,
        name: `app_${tag}`,
        grants: [{ databaseId: database.id, access: 'readwrite' }],
      }),
      201,
    )
    await waitFor(
      `user ${made.id}`,
      async () => {
        const now = await json<{ status: string }>(await get(`/database-users/${made.id}`), 200)
        if (now.status === 'active') return true
        await Bun.sleep(50)
        return null
      },
      60_000,
    )
    own = {
      engine,
      host: database.host,
      port: database.port,
      database: database.name,
      username: made.username,
      password: made.password,
    }
  }, 180_000)

  test('a readwrite lease writes; a readonly lease dumps it consistently and cannot write', async () => {
    const writer = await leased(access.lease(database.id, 'readwrite', localNodeId))
    expect(writer.login).toMatchObject({ engine, database: database.name, host: database.host })
    expect(writer.login.port).toBe(database.port)
    expect(madeAtOf(writer.login.username)?.getTime()).toBeGreaterThan(Date.now() - 60_000)
    const client = await connect(writer.login)
    await client.query('CREATE TABLE orders (id integer PRIMARY KEY, total integer)')
    await client.query('INSERT INTO orders VALUES (1, 10), (2, 20)')
    await client.query('CREATE VIEW big_orders AS SELECT id FROM orders WHERE total > 15')
    // MariaDB runs a trigger as its definer: one a restore loads must outlive the login that loaded it.
    if (engine === 'mariadb')
      await client.query(
        'CREATE TRIGGER rounded BEFORE INSERT ON orders FOR EACH ROW SET NEW.total = NEW.total * 10',
      )
    await client.end()

    const reader = await leased(access.lease(database.id, 'readonly', localNodeId))
    const text = await dump(reader.login)
    expect(text).toContain('CREATE TABLE')
    expect(text).toMatch(/big_orders/)
    expect(text).toMatch(
      engine === 'mariadb' ? /INSERT INTO `orders` VALUES\s*\(1,10\),\s*\(2,20\)/ : /1\t10\n2\t20/,
    )
    const readOnly = await connect(reader.login)
    expect(await readOnly.query('SELECT total FROM orders ORDER BY id')).toEqual([
      { total: 10 },
      { total: 20 },
    ])
    for (const statement of [
      'INSERT INTO orders VALUES (3, 30)',
      'UPDATE orders SET total = 0',
      'DELETE FROM orders',
      'CREATE TABLE mine (id integer)',
      'DROP TABLE orders',
    ])
      await expect(readOnly.query(statement)).rejects.toThrow()
    await readOnly.end()
    await reader.release()
    expect(await logsIn(reader.login)).toBe(false)
    // Released twice: nothing more to do, no error.
    await reader.release()
  })

  test('a dump loads into a scratch database, which is empty first and goes with its release', async () => {
    const reader = await leased(access.lease(database.id, 'readonly', localNodeId))
    const text = await dump(reader.login)
    await reader.release()
    const scratch = await leased(access.scratch(database.id, localNodeId))
    expect(scratch.login.database).not.toBe(database.name)
    expect(madeAtOf(scratch.login.database)).not.toBeNull()
    expect(await tablesOf(scratch.login)).toEqual([])
    await load(scratch.login, text)
    expect(await tablesOf(scratch.login)).toEqual(
      engine === 'mariadb' ? ['big_orders', 'orders'] : ['orders'],
    )
    await scratch.release()
    await scratch.release()
    expect(await logsIn(scratch.login)).toBe(false)
    if (!kind.includes('own')) expect(await existsOnServer(engine, scratch.login.database)).toBe(false)
  })

  test('a readwrite lease replaces the tables with a dump (a restore)', async () => {
    const reader = await leased(access.lease(database.id, 'readonly', localNodeId))
    const text = await dump(reader.login)
    await reader.release()
    const restorer = await leased(access.lease(database.id, 'readwrite', localNodeId))
    const client = await connect(restorer.login)
    await client.query('UPDATE orders SET total = 99')
    // As a restore does: the database's views and tables dropped, then the dump loaded.
    await client.query('DROP VIEW big_orders')
    await client.query('DROP TABLE orders')
    await load(restorer.login, text)
    expect(await client.query('SELECT total FROM orders ORDER BY id')).toEqual([{ total: 10 }, { total: 20 }])
    expect(await client.query('SELECT id FROM big_orders')).toEqual([{ id: 2 }])
    await client.end()
    await restorer.release()
    expect(await logsIn(restorer.login)).toBe(false)
    // What the restore loaded works for the database's own login after the temporary one is gone: MariaDB's view
    // and trigger are the own login's now.
    const app = await connect(own)
    expect(await app.query('SELECT id FROM big_orders')).toEqual([{ id: 2 }])
    await app.query('INSERT INTO orders VALUES (3, 3)')
    expect(await app.query('SELECT total FROM orders WHERE id = 3')).toEqual([
      { total: engine === 'mariadb' ? 30 : 3 },
    ])
    if (engine === 'mariadb')
      expect(
        await app.query(
          'SELECT DEFINER AS definer FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE() UNION ALL SELECT DEFINER FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()',
        ),
      ).toEqual([{ definer: `${own.username}@127.0.0.1` }, { definer: `${own.username}@127.0.0.1` }])
    await app.query('DELETE FROM orders WHERE id = 3')
    await app.end()
  })

  test('the customer’s other databases on the same server are out of a lease’s reach', async () => {
    // Another site's on a node's own server (which takes its node's sites' only), one of no site on staff's.
    const otherSite = site ? await newSite(`other-${tag}`) : null
    const other = await activeDatabase({
      engine,
      name: `other_${tag}`,
      ...(otherSite ? { siteId: otherSite } : {}),
    })
    expect(other.serverId).toBe(database.serverId)
    const lease = await leased(access.lease(database.id, 'readwrite', localNodeId))
    expect(await logsIn(lease.login, other.name)).toBe(false)
    const client = await connect(lease.login)
    // PostgreSQL has no statement across databases; MariaDB's name another database.
    if (engine === 'mariadb')
      await expect(client.query(`CREATE TABLE \`${other.name}\`.x (id integer)`)).rejects.toThrow(/denied/)
    await client.end()
    await lease.release()
  })
})

describe('what a lease refuses', () => {
  test('a database another node could not reach: no login is made', async () => {
    const onNode = (
      await json<{ items: { id: string; serverId: string }[] }>(
        await get(`/databases?customerId=${customerId}`),
        200,
      )
    ).items
    const servers = await json<{ items: { id: string; nodeId: string | null }[] }>(
      await get('/database-servers'),
      200,
    )
    const nodeServer = servers.items.find((server) => server.nodeId === localNodeId)
    const database = onNode.find((each) => each.serverId === nodeServer?.id)
    expect(database).toBeDefined()
    const other = await json<{ id: string }>(
      await post('/nodes', { name: `far-${run}`, hostname: '203.0.113.7', driver: 'agent' }),
      201,
    )
    await expect(access.lease(database?.id ?? '', 'readonly', other.id)).rejects.toMatchObject({
      code: 'database_server_unreachable',
    })
  })

  test('a database that is not active, or not there', async () => {
    await expect(access.lease('db_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'readonly', null)).rejects.toMatchObject({
      code: 'unknown_database',
    })
  })

  test('ofSite lists the site’s databases, not the customer’s others', async () => {
    const sites = await json<{ items: { id: string; domain: string }[] }>(await get('/sites'), 200)
    const pgSite = sites.items.find((each) => each.domain.startsWith('shop-pg-'))
    const found = await access.ofSite(db, pgSite?.id ?? '')
    expect(found).toEqual([
      expect.objectContaining({
        engine: 'postgresql',
        status: 'active',
        name: expect.stringMatching(/_shop_pg$/),
      }),
    ])
  })
})

describe('the periodic check', () => {
  test('drops on every server the temporaries a crash left behind, and leaves a run’s own', async () => {
    const old = () => temporaryNameAt(new Date(Date.now() - temporaryLifetimeMs - 60_000))
    const servers = [
      { engine: mariadbEngine(), admin: mariadbAdmin },
      { engine: postgresqlEngine(), admin: postgresqlAdmin },
      // The node's own server, through the node: its administrator is the node's.
      { engine: nodeEngine(), admin: mariadbAdmin },
    ]
    const left = servers.map((server) => ({ ...server, name: old() }))
    for (const { engine, admin, name } of left) {
      await engine.createDatabase(admin, name)
      await engine.createUser(admin, name, 'Left-Behind-2026-pw', ['127.0.0.1'])
    }
    const sites = await json<{ items: { id: string; domain: string }[] }>(await get('/sites'), 200)
    const onNode = await access.ofSite(
      db,
      sites.items.find((each) => each.domain.startsWith('shop-own-'))?.id ?? '',
    )
    const running = await leased(access.scratch(onNode[0]?.id ?? '', localNodeId))

    const jobId = await runCheck()
    const done = await waitFor(
      'the check',
      async () => {
        const now = await json<{ status: string; result: { swept: number; failed: string[] } | null }>(
          await get(`/jobs/${jobId}`),
          200,
        )
        if (now.status === 'succeeded' || now.status === 'failed') return now
        await Bun.sleep(50)
        return null
      },
      60_000,
    )
    expect(done).toMatchObject({ status: 'succeeded', result: { failed: [] } })
    expect(done.result?.swept).toBeGreaterThanOrEqual(2 * left.length)
    for (const { engine, admin, name } of left)
      expect(await engine.namesStartingWith(admin, name)).toEqual({ databases: [], users: [] })
    // The run's own scratch database and login are young: they stay, and work.
    expect(await logsIn(running.login)).toBe(true)
    for (const { engine } of servers.slice(0, 2)) await engine.close()
    await running.release()
  })
})
