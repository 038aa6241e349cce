// Databases and database users through the API, on the machine's real MariaDB and PostgreSQL: the panel makes them
// on the servers, and the test then connects as the users it created (mysql2, postgres.js) to show what each may
// and may not reach.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import mysql from 'mysql2/promise'
import postgres from 'postgres'
import {
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  type TestPanel,
  waitFor as waitForNow,
} from '../../hosts/testing/index.ts'
import type { Database, DatabaseServer, DatabaseUser } from './contract.ts'
import type { EngineName, ServerAccess } from './engines/engine.ts'
import { mariadbEngine } from './engines/mariadb.ts'
import { databasesPlugin } from './index.ts'
import { customerPrefixOf } from './naming.ts'
import {
  mariadbAdmin,
  mariadbAdminOptions,
  postgresqlAdmin,
  requirePasswordsForTenants,
} from './test-servers.ts'

const admins: Record<EngineName, ServerAccess> = { mariadb: mariadbAdmin, postgresql: postgresqlAdmin }

let tp: TestPanel
let staff: string
const run = crypto.randomUUID().slice(0, 6)

beforeAll(async () => {
  await requirePasswordsForTenants()
  tp = await createTestPanel({
    // The standard plugins, with the check every 300 ms instead of every 15 minutes.
    overrides: [databasesPlugin({ checkIntervalMs: 300 })],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
    defaultCustomerLimits: { databases: 4 },
  })
  tp.panel.start()
  staff = await tp.token()
})
afterAll(async () => {
  await tp.panel.close()
  await dropWhatThisRunMade()
})

/**
 * Polls `probe` every 50 ms until it answers: every request counts against the panel's rate limit (1,200 a minute),
 * which a probe every few milliseconds spends in seconds when a server is slow (and then answers 429 to the end).
 */
function waitFor<T>(what: string, probe: () => Promise<T> | T, timeoutMs?: number) {
  return waitForNow(
    what,
    async () => {
      const value = await probe()
      if (!value) await Bun.sleep(50)
      return value
    },
    timeoutMs,
  )
}

async function json<T>(response: Response, status: number): Promise<T> {
  const body = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${body}`)
  return JSON.parse(body) as T
}

const post = (path: string, body: unknown, token = staff) =>
  tp.request('POST', `/api/v1${path}`, { token, body })
const get = (path: string, token = staff) => tp.request('GET', `/api/v1${path}`, { token })

/** The customers this run made: what is left of theirs on the servers is dropped at the end. */
const customers: string[] = []

async function newCustomer(name: string): Promise<string> {
  const id = (await json<{ id: string }>(await post('/customers', { name }), 201)).id
  customers.push(id)
  return id
}

/** Drops every database and login of this run's customers left on the servers (a failed test leaves some). */
async function dropWhatThisRunMade(): Promise<void> {
  const prefixes = customers.map((id) => `${customerPrefixOf(id)}_`)
  const ours = (name: string) => prefixes.some((prefix) => name.startsWith(prefix))
  const maria = await mysql.createConnection(mariadbAdminOptions)
  const [databases] = await maria.query<mysql.RowDataPacket[]>(
    'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA',
  )
  for (const { name } of databases) if (ours(String(name))) await maria.query('DROP DATABASE ??', [name])
  const [accounts] = await maria.query<mysql.RowDataPacket[]>(
    'SELECT User AS user, Host AS host FROM mysql.user',
  )
  for (const { user, host } of accounts)
    if (ours(String(user))) await maria.query('DROP USER ?@?', [user, host])
  await maria.end()
  const pg = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  // Statements quoted by the server itself (format's %I).
  for (const row of await pg`select datname, format('DROP DATABASE %I WITH (FORCE)', datname) as drop from pg_database`)
    if (ours(String(row.datname))) await pg.unsafe(String(row.drop))
  // A role still referenced somewhere is left rather than fail the run over its cleaning.
  for (const row of await pg`select rolname, format('DROP ROLE %I', rolname) as drop from pg_roles`)
    if (ours(String(row.rolname))) await pg.unsafe(String(row.drop)).catch(() => {})
  await pg.end()
}

/** The job `id` once it finished, whatever its outcome. */
async function finished(jobId: string | null): Promise<{ status: string; error: unknown }> {
  if (!jobId) throw new Error('no job')
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = await json<{ status: string; error: unknown }>(await get(`/jobs/${jobId}`), 200)
      return job.status === 'succeeded' || job.status === 'failed' ? job : null
    },
    20_000,
  )
}

async function settledDatabase(id: string): Promise<Database> {
  return waitFor(
    `database ${id}`,
    async () => {
      const database = await json<Database>(await get(`/databases/${id}`), 200)
      return database.status === 'provisioning' ? null : database
    },
    20_000,
  )
}

/** The user once its latest job has finished. */
async function settledUser(id: string): Promise<DatabaseUser> {
  const user = await json<DatabaseUser>(await get(`/database-users/${id}`), 200)
  expect((await finished(user.jobId)).status).toBe('succeeded')
  return json<DatabaseUser>(await get(`/database-users/${id}`), 200)
}

/** A session as a tenant user on `database`, or the error the server answered. */
interface Session {
  query(sql: string): Promise<unknown[]>
  end(): Promise<void>
}

async function connect(
  engine: EngineName,
  user: string,
  password: string,
  database: string,
): Promise<Session> {
  const { host, port } = admins[engine]
  if (engine === 'mariadb') {
    const connection = await mysql.createConnection({
      host,
      port,
      user,
      password,
      database,
      connectTimeout: 5_000,
    })
    return {
      query: async (sql) => (await connection.query(sql))[0] as unknown[],
      end: () => connection.end(),
    }
  }
  const sql = postgres({
    host,
    port,
    username: user,
    password,
    database,
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
  })
  // postgres.js connects lazily: a first query shows whether the login works.
  await sql`select 1`
  return { query: async (text) => [...(await sql.unsafe(text))], end: () => sql.end() }
}

async function refused(attempt: () => Promise<unknown>): Promise<string> {
  try {
    const session = await attempt()
    if (session && typeof session === 'object' && 'end' in session) await (session as Session).end()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the server to refuse')
}

/** What the server holds: whether a database and a login of these names exist (as the administrator sees). */
async function onServer(engine: EngineName, database: string, user: string) {
  if (engine === 'mariadb') {
    const admin = await mysql.createConnection(mariadbAdminOptions)
    const [dbs] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [database],
    )
    const [users] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT User, Host FROM mysql.user WHERE User = ?',
      [user],
    )
    await admin.end()
    return { databases: dbs.length, logins: users.length }
  }
  const admin = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  const [dbs] = await admin`select count(*)::int as n from pg_database where datname = ${database}`
  const [roles] = await admin`select count(*)::int as n from pg_roles where rolname = ${user}`
  await admin.end()
  return { databases: dbs?.n as number, logins: roles?.n as number }
}

const writeTable = (engine: EngineName) =>
  engine === 'mariadb'
    ? 'CREATE TABLE notes (id INT PRIMARY KEY, body TEXT)'
    : 'CREATE TABLE notes (id int primary key, body text)'

describe.each(['mariadb', 'postgresql'] as const)('on %s', (engine) => {
  let server: DatabaseServer
  let acme: string
  let beta: string
  let shop: Database
  let lookalike: Database
  let betaDb: Database
  let writer: DatabaseUser & { password: string }
  let reader: DatabaseUser & { password: string }

  beforeAll(async () => {
    acme = await newCustomer(`Acme ${engine} ${run}`)
    beta = await newCustomer(`Beta ${engine} ${run}`)
  })

  test('staff add the server only after the panel could log in and create on it', async () => {
    const admin = admins[engine]
    const body = {
      name: `${engine}-${run}`,
      engine,
      host: admin.host,
      port: admin.port,
      username: admin.username,
      password: admin.password,
    }
    const closed = await post('/database-servers', { ...body, port: 1 })
    await expectProblem(closed, 422, 'server_unreachable')
    if (engine === 'mariadb') {
      await expectProblem(
        await post('/database-servers', { ...body, password: 'not-the-password' }),
        422,
        'server_login_failed',
      )
    } else {
      // The machine trusts local logins, so a wrong password still gets in: a role without the rights is refused.
      const powerless = `powerless_${run}`
      const sql = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
      await sql.unsafe(`CREATE ROLE ${powerless} LOGIN`)
      await expectProblem(
        await post('/database-servers', { ...body, username: powerless }),
        422,
        'server_privileges_missing',
      )
      await sql.unsafe(`DROP ROLE ${powerless}`)
      await sql.end()
    }
    const list = await json<{ items: DatabaseServer[] }>(await get(`/database-servers?engine=${engine}`), 200)
    expect(list.items.some((item) => item.name === body.name)).toBe(false)

    const response = await post('/database-servers', body)
    server = await json<DatabaseServer>(response, 201)
    expect(server).toMatchObject({ name: body.name, engine, status: 'active', databases: 0, capacity: null })
    expect(JSON.stringify(server)).not.toContain('password')
    expect(response.headers.get('location')).toBe(`/api/v1/database-servers/${server.id}`)
  })

  test('a customer-limited token never sees a database server', async () => {
    const limited = await tp.token({ customerId: acme })
    await expectProblem(await get('/database-servers', limited), 403, 'staff_only')
    await expectProblem(await get(`/database-servers/${server.id}`, limited), 403, 'staff_only')
  })

  test('databases are created on the server under the customer’s prefix', async () => {
    const response = await post('/databases', { customerId: acme, engine, name: 'shop_a1' })
    shop = await json<Database>(response, 201)
    expect(shop).toMatchObject({
      customerId: acme,
      engine,
      status: 'provisioning',
      serverId: server.id,
      siteId: null,
    })
    expect(shop.name).toMatch(/^c[0-9a-z]{8}_shop_a1$/)
    expect(shop.jobId).toMatch(/^job_/)
    lookalike = await json<Database>(
      await post('/databases', { customerId: acme, engine, name: 'shopxa1' }),
      201,
    )
    betaDb = await json<Database>(
      await post('/databases', { customerId: beta, engine, name: 'shop_a1' }),
      201,
    )
    expect(betaDb.name).not.toBe(shop.name)
    for (const database of [shop, lookalike, betaDb])
      expect((await settledDatabase(database.id)).status).toBe('active')
    expect((await onServer(engine, shop.name, 'nobody')).databases).toBe(1)
  })

  test('bad names, taken names and foreign sites are refused with their codes', async () => {
    await expectFieldProblem(
      await post('/databases', { customerId: acme, engine, name: 'Shop' }),
      422,
      'invalid_database_name',
      'body.name',
    )
    await expectFieldProblem(
      await post('/databases', { customerId: acme, engine, name: 'a__b' }),
      422,
      'invalid_database_name',
      'body.name',
    )
    await expectFieldProblem(
      await post('/databases', { customerId: acme, engine, name: 'x; drop' }),
      422,
      'invalid_database_name',
      'body.name',
    )
    await expectFieldProblem(
      await post('/databases', { customerId: acme, engine, name: 'shop_a1' }),
      409,
      'database_name_taken',
      'body.name',
    )
    await expectFieldProblem(
      await post('/databases', {
        customerId: acme,
        engine,
        name: 'x',
        siteId: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
      }),
      422,
      'unknown_database_site',
      'body.siteId',
    )
  })

  test('users get their password once, and log in with it once their job is done', async () => {
    const response = await post('/database-users', {
      customerId: acme,
      name: 'writer',
      grants: [{ databaseId: shop.id, access: 'readwrite' }],
    })
    writer = await json<DatabaseUser & { password: string }>(response, 201)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(writer).toMatchObject({
      customerId: acme,
      engine,
      serverId: server.id,
      status: 'provisioning',
      locked: false,
    })
    expect(writer.username).toMatch(/^c[0-9a-z]{8}_writer$/)
    expect(writer.password).toMatch(/^[A-Za-z0-9]{24}$/)
    expect(writer.allowedHosts).toContain('127.0.0.1')
    reader = await json(
      await post('/database-users', {
        customerId: acme,
        name: 'reader',
        password: 'Reader-Password-2026!',
        grants: [{ databaseId: shop.id, access: 'readonly' }],
      }),
      201,
    )
    expect(reader.password).toBe('Reader-Password-2026!')
    expect((await settledUser(writer.id)).status).toBe('active')
    expect((await settledUser(reader.id)).status).toBe('active')
    const read = await json<Record<string, unknown>>(await get(`/database-users/${writer.id}`), 200)
    expect(read.password).toBeUndefined()
    // Nor do the events carry it: they go to webhooks and stay in the outbox.
    const created = await tp.panel.store.db
      .withTables<{ event_outbox: { kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .select('payload')
      .where('kind', '=', 'database_user.created')
      .execute()
    const mine = created.filter((event) => event.payload.includes(writer.id))
    expect(mine).toHaveLength(1)
    expect(mine[0]?.payload).not.toContain(writer.password)
    expect(JSON.parse(mine[0]?.payload ?? '{}').password).toBeUndefined()
    expect(read.grants).toEqual([{ databaseId: shop.id, access: 'readwrite' }])
  })

  test('weak passwords, foreign databases and wildcard hosts are refused', async () => {
    await expectFieldProblem(
      await post('/database-users', { customerId: acme, name: 'weak', password: 'password12345678', engine }),
      422,
      'weak_password',
      'body.password',
    )
    await expectFieldProblem(
      await post('/database-users', {
        customerId: acme,
        name: 'thief',
        grants: [{ databaseId: betaDb.id, access: 'readwrite' }],
      }),
      422,
      'unknown_database',
      'body.grants.0.databaseId',
    )
    for (const host of ['%', 'fe80::1%eth0', '::%.1', 'a_b.example'])
      await expectFieldProblem(
        await post('/database-users', {
          customerId: acme,
          name: 'open',
          engine,
          allowedHosts: ['127.0.0.1', host],
        }),
        422,
        'invalid_allowed_host',
        'body.allowedHosts.1',
      )
    await expectFieldProblem(
      await post('/database-users', { customerId: acme, name: 'writer', engine }),
      409,
      'database_username_taken',
      'body.name',
    )
  })

  test('a readwrite user writes; a readonly user reads what it wrote later and cannot write', async () => {
    const rw = await connect(engine, writer.username, writer.password, shop.name)
    await rw.query(writeTable(engine))
    await rw.query("INSERT INTO notes VALUES (1, 'hello')")
    await rw.end()
    const ro = await connect(engine, reader.username, reader.password, shop.name)
    expect(await ro.query('SELECT body FROM notes')).toEqual([{ body: 'hello' }])
    await expect(ro.query("INSERT INTO notes VALUES (2, 'no')")).rejects.toThrow()
    await expect(ro.query('CREATE TABLE mine (id int)')).rejects.toThrow()
    await ro.end()
  })

  test('neither reaches another customer’s database, nor one whose name differs at an underscore', async () => {
    for (const user of [writer, reader]) {
      await refused(() => connect(engine, user.username, user.password, betaDb.name))
      await refused(() => connect(engine, user.username, user.password, lookalike.name))
    }
  })

  test('neither can create users or grant', async () => {
    const session = await connect(engine, writer.username, writer.password, shop.name)
    const intruder = `intruder_${run}`
    await expect(session.query(`CREATE USER ${intruder}`)).rejects.toThrow()
    if (engine === 'mariadb') {
      await expect(session.query(`GRANT SELECT ON *.* TO '${reader.username}'@'127.0.0.1'`)).rejects.toThrow()
      await expect(
        session.query(`GRANT SELECT ON \`${lookalike.name}\`.* TO '${reader.username}'@'127.0.0.1'`),
      ).rejects.toThrow()
    } else {
      await expect(session.query(`CREATE ROLE ${intruder}`)).rejects.toThrow()
      await expect(
        session.query(`GRANT CONNECT ON DATABASE ${lookalike.name} TO ${reader.username}`),
      ).rejects.toThrow()
      await expect(session.query(`ALTER ROLE ${writer.username} SUPERUSER`)).rejects.toThrow()
    }
    await session.end()
    expect((await onServer(engine, 'none', intruder)).logins).toBe(0)
  })

  test('a rotated password stops the old one (asked for without a body: every field is optional)', async () => {
    // Outside clients found a rotation without a body refused with 422 "needs a JSON body".
    const rotated = await json<DatabaseUser & { password: string }>(
      await post(`/database-users/${writer.id}/rotate-password`, undefined),
      200,
    )
    expect(rotated.password).not.toBe(writer.password)
    await settledUser(writer.id)
    await refused(() => connect(engine, writer.username, writer.password, shop.name))
    const session = await connect(engine, writer.username, rotated.password, shop.name)
    await session.end()
    writer = { ...writer, password: rotated.password }
  })

  test('changing grants applies them on the server, and revokes what is no longer granted', async () => {
    await json(
      await tp.request('PATCH', `/api/v1/database-users/${reader.id}`, {
        token: staff,
        body: { grants: [{ databaseId: lookalike.id, access: 'readonly' }] },
      }),
      200,
    )
    await settledUser(reader.id)
    await refused(() =>
      connect(engine, reader.username, reader.password, shop.name).then((s) =>
        s.query('SELECT * FROM notes').then(() => s),
      ),
    )
    const session = await connect(engine, reader.username, reader.password, lookalike.name)
    await session.end()
  })

  test('another customer’s database is 404 to a token limited to it, and its list is empty', async () => {
    const betaToken = await tp.token({ customerId: beta })
    await expectProblem(await get(`/databases/${shop.id}`, betaToken), 404, 'not_found')
    await expectProblem(await get(`/database-users/${writer.id}`, betaToken), 404, 'not_found')
    const list = await json<{ items: Database[] }>(await get(`/databases?customerId=${acme}`, betaToken), 200)
    expect(list.items).toEqual([])
  })

  test('the plan’s database limit is enforced', async () => {
    // acme has shop_a1 and shopxa1; the default limit is 4.
    await json(await post('/databases', { customerId: acme, engine, name: 'third' }), 201)
    await json(await post('/databases', { customerId: acme, engine, name: 'fourth' }), 201)
    await expectProblem(
      await post('/databases', { customerId: acme, engine, name: 'fifth' }),
      422,
      'database_limit_reached',
    )
  })

  test('a database deleted while it is still provisioning is gone from the server, and its name free again', async () => {
    for (let round = 0; round < 3; round++) {
      const quick = await json<Database>(
        await post('/databases', { customerId: beta, engine, name: 'quick' }),
        201,
      )
      const deleting = await json<Database>(
        await tp.request('DELETE', `/api/v1/databases/${quick.id}`, { token: staff }),
        202,
      )
      expect((await finished(deleting.jobId)).status).toBe('succeeded')
      await waitFor(
        'the database to be gone',
        async () => (await get(`/databases/${quick.id}`)).status === 404 || null,
        20_000,
      )
      expect((await onServer(engine, quick.name, 'nobody')).databases).toBe(0)
    }
  })

  test('a suspended customer’s users cannot log in, and can again after the suspension ends', async () => {
    const gamma = await newCustomer(`Gamma ${engine} ${run}`)
    const plan = await json<{ id: string }>(
      await post('/plans', { name: `Plan ${engine} ${run}`, limits: { databases: 2 } }),
      201,
    )
    const subscription = await json<{ id: string }>(
      await post('/subscriptions', { customerId: gamma, planId: plan.id }),
      201,
    )
    const database = await json<Database>(
      await post('/databases', { customerId: gamma, engine, name: 'held' }),
      201,
    )
    const user = await json<DatabaseUser & { password: string }>(
      await post('/database-users', {
        customerId: gamma,
        name: 'held',
        grants: [{ databaseId: database.id, access: 'readwrite' }],
      }),
      201,
    )
    await settledDatabase(database.id)
    await settledUser(user.id)
    const open = await connect(engine, user.username, user.password, database.name)
    await json(await post(`/subscriptions/${subscription.id}/suspend`, { reason: 'invoice unpaid' }), 200)
    const locked = await settledUser(user.id)
    expect(locked.locked).toBe(true)
    // The session open during the suspension was ended.
    await expect(open.query('SELECT 1')).rejects.toThrow()
    await open.end().catch(() => {})
    await refused(() => connect(engine, user.username, user.password, database.name))
    await expectProblem(
      await post('/database-users', { customerId: gamma, name: 'later', engine }),
      422,
      'customer_suspended',
    )
    await json(await post(`/subscriptions/${subscription.id}/unsuspend`, undefined), 200)
    expect((await settledUser(user.id)).locked).toBe(false)
    const again = await connect(engine, user.username, user.password, database.name)
    await again.end()
  })

  test('the periodic check measures sizes, shows them in /usage, and reports grants changed by hand as drift', async () => {
    const measured = await waitFor(
      'the size of shop',
      async () => {
        const database = await json<Database>(await get(`/databases/${shop.id}`), 200)
        return database.sizeBytes !== null && database.sizeBytes > 0 ? database : null
      },
      10_000,
    )
    expect(measured.sizeMeasuredAt).not.toBeNull()
    const usage = await json<Record<string, unknown>>(await get('/usage'), 200)
    expect(JSON.stringify(usage)).toContain('databaseBytes')
    // Staff (or an intruder with the administrator's password) grant the writer more by hand.
    if (engine === 'mariadb') {
      const admin = await mysql.createConnection(mariadbAdminOptions)
      await admin.query(`GRANT SELECT ON \`${betaDb.name.replaceAll('_', '\\_')}\`.* TO ?@'127.0.0.1'`, [
        writer.username,
      ])
      await admin.end()
    } else {
      const admin = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
      await admin.unsafe(`GRANT ${betaDb.name}__reader TO ${writer.username}`)
      await admin.end()
    }
    const drifted = await waitFor(
      'the drift to be reported',
      async () => {
        const user = await json<DatabaseUser>(await get(`/database-users/${writer.id}`), 200)
        return user.drift
      },
      10_000,
    )
    // Another customer's database is counted, never named to this one.
    expect(drifted).toMatchObject({ onServer: [{ databaseId: shop.id, access: 'readwrite' }], unknown: 1 })
    expect(JSON.stringify(drifted)).not.toContain(betaDb.id)
    // And said so once, in an event (read from the outbox, where webhooks take it from).
    const events = await tp.panel.store.db
      .withTables<{ event_outbox: { kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .select(['kind', 'payload'])
      .where('kind', '=', 'database_user.drifted')
      .execute()
    expect(
      events.filter((event) => (JSON.parse(event.payload) as { id: string }).id === writer.id),
    ).toHaveLength(1)
    // A change of the user applies the panel's grants again and clears the drift.
    await json(
      await tp.request('PATCH', `/api/v1/database-users/${writer.id}`, {
        token: staff,
        body: { grants: writer.grants },
      }),
      200,
    )
    expect((await settledUser(writer.id)).drift).toBeNull()
    await refused(() => connect(engine, writer.username, writer.password, betaDb.name))
  })

  test('deleting a site deletes the databases attached to it', async () => {
    const node = await json<{ items: { id: string }[] }>(await get('/nodes'), 200)
    expect(node.items.length).toBeGreaterThan(0)
    const site = await json<{ id: string; jobId: string }>(
      await post('/sites', {
        customerId: beta,
        name: 'Blog',
        type: 'wordpress',
        domain: `blog-${engine}-${run}.example.com`,
      }),
      201,
    )
    await finished(site.jobId)
    const attached = await json<Database>(
      await post('/databases', { customerId: beta, engine, name: 'blog', siteId: site.id }),
      201,
    )
    expect(attached.siteId).toBe(site.id)
    await settledDatabase(attached.id)
    const deleting = await json<{ jobId: string }>(
      await tp.request('DELETE', `/api/v1/sites/${site.id}`, { token: staff }),
      202,
    )
    await finished(deleting.jobId)
    await waitFor(
      'the attached database to be dropped',
      async () => (await get(`/databases/${attached.id}`)).status === 404 || null,
      20_000,
    )
    expect((await onServer(engine, attached.name, 'nobody')).databases).toBe(0)
  })

  test('a deleted database is gone from the server, and a deleted user cannot log in', async () => {
    const doomed = await json<Database>(
      await post('/databases', { customerId: beta, engine, name: 'doomed' }),
      201,
    )
    await settledDatabase(doomed.id)
    const deleting = await json<Database>(
      await tp.request('DELETE', `/api/v1/databases/${doomed.id}`, { token: staff }),
      202,
    )
    expect(deleting.status).toBe('deleting')
    expect((await finished(deleting.jobId)).status).toBe('succeeded')
    await expectProblem(await get(`/databases/${doomed.id}`), 404, 'not_found')
    expect((await onServer(engine, doomed.name, 'nobody')).databases).toBe(0)

    const gone = await json<DatabaseUser>(
      await tp.request('DELETE', `/api/v1/database-users/${reader.id}`, { token: staff }),
      202,
    )
    expect((await finished(gone.jobId)).status).toBe('succeeded')
    await refused(() => connect(engine, reader.username, reader.password, lookalike.name))
    expect((await onServer(engine, 'none', reader.username)).logins).toBe(0)
  })
})

describe('refusals, on a panel whose jobs do not run (so states stay where the requests left them)', () => {
  let still: TestPanel
  let token: string
  let customerId: string
  const call = (method: string, path: string, body?: unknown) =>
    still.request(method, `/api/v1${path}`, { token, body })
  const serverBody = (engine: EngineName, name: string) => ({
    name,
    engine,
    host: admins[engine].host,
    port: admins[engine].port,
    username: admins[engine].username,
    password: admins[engine].password,
  })

  beforeAll(async () => {
    still = await createTestPanel({ overrides: [databasesPlugin({ checkIntervalMs: 0 })] })
    token = await still.token()
    customerId = (await json<{ id: string }>(await call('POST', '/customers', { name: 'Still' }), 201)).id
  })
  afterAll(() => still.panel.close())

  test('without a server of the engine, databases and users have nowhere to go', async () => {
    await expectProblem(
      await call('POST', '/databases', { customerId, engine: 'mariadb', name: 'x' }),
      409,
      'no_database_server',
    )
    await expectProblem(
      await call('POST', '/database-users', { customerId, engine: 'mariadb', name: 'x' }),
      409,
      'no_database_server',
    )
    await expectFieldProblem(
      await call('POST', '/database-users', {
        customerId,
        name: 'x',
        serverId: 'dbs_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
      }),
      422,
      'unknown_database_server',
      'body.serverId',
    )
  })

  test('server names are unique, and a server that cannot be understood is unreachable', async () => {
    await json(await call('POST', '/database-servers', serverBody('mariadb', 'one')), 201)
    await expectFieldProblem(
      await call('POST', '/database-servers', serverBody('postgresql', 'one')),
      409,
      'database_server_name_taken',
      'body.name',
    )
    // A MariaDB client talking to PostgreSQL's port cannot read its answers: unreachable, nothing stored.
    await expectFieldProblem(
      await call('POST', '/database-servers', {
        ...serverBody('mariadb', 'confused'),
        port: admins.postgresql.port,
      }),
      422,
      'server_unreachable',
      'body',
    )
  })

  test('a server failing in a way the panel does not know is 502 server_failed, naming nothing of it', async () => {
    // The real servers fail only in the ways the engines name; an engine failing otherwise stands in for the rest.
    const broken = await createTestPanel({
      overrides: [
        databasesPlugin({
          checkIntervalMs: 0,
          engines: () => ({
            ...mariadbEngine(),
            check: () => Promise.reject(new Error('protocol error near "root:s3cret@db-1"')),
          }),
        }),
      ],
    })
    try {
      const response = await broken.request('POST', '/api/v1/database-servers', {
        token: await broken.token(),
        body: serverBody('mariadb', 'broken'),
      })
      const problem = await expectProblem(response, 502, 'server_failed')
      expect(JSON.stringify(problem)).not.toContain('s3cret')
      const list = await broken.request('GET', '/api/v1/database-servers', { token: await broken.token() })
      expect(((await list.json()) as { items: unknown[] }).items).toEqual([])
    } finally {
      await broken.panel.close()
    }
  })

  test('a grant names each database once, all on the user’s server', async () => {
    await json(await call('POST', '/database-servers', serverBody('postgresql', 'two')), 201)
    const maria = await json<Database>(
      await call('POST', '/databases', { customerId, engine: 'mariadb', name: 'm' }),
      201,
    )
    const pg = await json<Database>(
      await call('POST', '/databases', { customerId, engine: 'postgresql', name: 'p' }),
      201,
    )
    await expectFieldProblem(
      await call('POST', '/database-users', {
        customerId,
        name: 'twice',
        grants: [
          { databaseId: maria.id, access: 'readwrite' },
          { databaseId: maria.id, access: 'readonly' },
        ],
      }),
      422,
      'duplicate_grant',
      'body.grants.1.databaseId',
    )
    await expectFieldProblem(
      await call('POST', '/database-users', {
        customerId,
        name: 'both',
        grants: [
          { databaseId: maria.id, access: 'readwrite' },
          { databaseId: pg.id, access: 'readwrite' },
        ],
      }),
      422,
      'database_on_other_server',
      'body.grants.1.databaseId',
    )
  })

  test('what is being deleted cannot be deleted or changed again', async () => {
    const database = await json<Database>(
      await call('POST', '/databases', { customerId, engine: 'mariadb', name: 'gone' }),
      201,
    )
    expect((await json<Database>(await call('DELETE', `/databases/${database.id}`), 202)).status).toBe(
      'deleting',
    )
    await expectProblem(await call('DELETE', `/databases/${database.id}`), 409, 'database_busy')
    const user = await json<DatabaseUser>(
      await call('POST', '/database-users', { customerId, name: 'gone', engine: 'mariadb' }),
      201,
    )
    expect((await json<DatabaseUser>(await call('DELETE', `/database-users/${user.id}`), 202)).status).toBe(
      'deleting',
    )
    await expectProblem(
      await call('PATCH', `/database-users/${user.id}`, { grants: [] }),
      409,
      'database_user_busy',
    )
    await expectProblem(
      await call('POST', `/database-users/${user.id}/rotate-password`, {}),
      409,
      'database_user_busy',
    )
  })
})
