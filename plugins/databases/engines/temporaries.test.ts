// Backups' temporary logins as the engines make them, on the machine's real MariaDB and PostgreSQL: a `dump` login
// dumps what a site's database holds (MariaDB's triggers and events too) and cannot change a row, and the sweep drops
// the temporary logins and scratch databases older than a run can last, and nothing else.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import mysql from 'mysql2/promise'
import postgres from 'postgres'
import { temporaryNameAt } from '../temporary-names.ts'
import { sweepTemporary, temporaryLifetimeMs } from '../temporary-sweep.ts'
import { mariadbAdmin, postgresqlAdmin, requirePasswordsForTenants } from '../test-servers.ts'
import type { DatabaseEngine, EngineName, ServerAccess } from './engine.ts'
import { mariadbEngine } from './mariadb.ts'
import { postgresqlEngine } from './postgresql.ts'

const engines: Record<EngineName, { engine: DatabaseEngine; admin: ServerAccess }> = {
  mariadb: { engine: mariadbEngine(), admin: mariadbAdmin },
  postgresql: { engine: postgresqlEngine(), admin: postgresqlAdmin },
}
const prefix = `t${randomBytes(3).toString('hex')}`
const password = () => `pw-${randomBytes(12).toString('base64url')}`

beforeAll(() => requirePasswordsForTenants())
afterAll(async () => {
  for (const { engine } of Object.values(engines)) await engine.close()
})

/** Runs a client program with `pass` in its environment; answers its exit code and output. */
async function program(argv: string[], pass: string) {
  const child = Bun.spawn(argv, {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, MYSQL_PWD: pass, PGPASSWORD: pass },
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

describe('MariaDB: a dump login', () => {
  const { engine, admin } = engines.mariadb
  const database = `${prefix}_shop`
  const user = `${prefix}_dump`
  const pass = password()

  beforeAll(async () => {
    await engine.createDatabase(admin, database)
    const root = await mysql.createConnection({
      host: admin.host,
      port: admin.port,
      user: admin.username,
      password: admin.password,
      database,
    })
    await root.query('CREATE TABLE orders (id INT PRIMARY KEY, note TEXT)')
    await root.query("INSERT INTO orders VALUES (1, 'first')")
    await root.query(
      'CREATE TRIGGER shout BEFORE INSERT ON orders FOR EACH ROW SET NEW.note = UPPER(NEW.note)',
    )
    await root.query(
      'CREATE EVENT nightly ON SCHEDULE EVERY 1 DAY DISABLE DO DELETE FROM orders WHERE id < 0',
    )
    await root.end()
    await engine.createUser(admin, user, pass, ['127.0.0.1'])
    await engine.setGrants(admin, user, [{ database, access: 'dump' }], ['127.0.0.1'])
  })
  afterAll(async () => {
    await engine.dropUser(admin, user, ['127.0.0.1'])
    await engine.dropDatabase(admin, database)
  })

  test('dumps with --single-transaction its rows, triggers and events', async () => {
    const dumped = await program(
      [
        'mariadb-dump',
        '--host',
        admin.host,
        '--port',
        String(admin.port),
        '--user',
        user,
        '--single-transaction',
        '--events',
        database,
      ],
      pass,
    )
    expect(dumped.stderr).toBe('')
    expect(dumped.code).toBe(0)
    expect(dumped.stdout).toMatch(/INSERT INTO `orders` VALUES\s*\(1,'first'\)/)
    expect(dumped.stdout).toContain('TRIGGER shout BEFORE INSERT')
    expect(dumped.stdout).toContain('EVENT `nightly`')
  })

  test('changes no row, no table', async () => {
    const login = await mysql.createConnection({
      host: admin.host,
      port: admin.port,
      user,
      password: pass,
      database,
    })
    try {
      for (const statement of [
        "INSERT INTO orders VALUES (2, 'x')",
        "UPDATE orders SET note = 'x'",
        'DELETE FROM orders',
        'CREATE TABLE mine (id INT)',
        'ALTER TABLE orders ADD COLUMN x INT',
        'DROP TABLE orders',
        'TRUNCATE orders',
      ])
        await expect(login.query(statement)).rejects.toThrow(/denied/)
    } finally {
      await login.end()
    }
  })
})

/** The rows a statement answers, as plain objects. */
async function rowsOf(connection: mysql.Connection, statement: string): Promise<unknown[]> {
  return (await connection.query(statement))[0] as unknown[]
}

describe('MariaDB: definitions handed over', () => {
  const { engine, admin } = engines.mariadb
  const database = `${prefix}_restored`
  const loader = `${prefix}_loader`
  const heir = `${prefix}_heir`
  const passes = new Map([
    [loader, password()],
    [heir, password()],
  ])
  const login = (user: string) =>
    mysql.createConnection({
      host: admin.host,
      port: admin.port,
      user,
      password: passes.get(user),
      database,
    })

  beforeAll(async () => {
    await engine.createDatabase(admin, database)
    for (const user of [loader, heir]) {
      await engine.createUser(admin, user, passes.get(user) as string, ['127.0.0.1'])
      await engine.setGrants(admin, user, [{ database, access: 'readwrite' }], ['127.0.0.1'])
    }
  })
  afterAll(async () => {
    for (const user of [loader, heir]) await engine.dropUser(admin, user, ['127.0.0.1'])
    await engine.dropDatabase(admin, database)
  })

  test('the view, trigger, routines and event a login made keep working as the heir’s once it is dropped', async () => {
    const made = await login(loader)
    await made.query('CREATE TABLE orders (id INT PRIMARY KEY, total INT)')
    await made.query('CREATE VIEW big AS SELECT id FROM orders WHERE total > 15')
    await made.query(
      'CREATE TRIGGER tenfold BEFORE INSERT ON orders FOR EACH ROW SET NEW.total = NEW.total * 10',
    )
    await made.query('CREATE PROCEDURE add_order(IN n INT) INSERT INTO orders VALUES (n, n)')
    await made.query('CREATE FUNCTION doubled(n INT) RETURNS INT DETERMINISTIC RETURN n * 2')
    await made.query('CREATE EVENT tidy ON SCHEDULE EVERY 1 DAY DISABLE DO DELETE FROM orders WHERE id < 0')
    await made.end()

    expect(
      await engine.handOverDefinitions(admin, database, loader, { username: heir, host: '127.0.0.1' }),
    ).toBe(5)
    // Nothing left to hand over: a second call changes nothing.
    expect(
      await engine.handOverDefinitions(admin, database, loader, { username: heir, host: '127.0.0.1' }),
    ).toBe(0)
    await engine.dropUser(admin, loader, ['127.0.0.1'])

    const app = await login(heir)
    try {
      await app.query('CALL add_order(2)')
      expect(await rowsOf(app, 'SELECT total FROM orders')).toEqual([{ total: 20 }])
      expect(await rowsOf(app, 'SELECT id FROM big')).toEqual([{ id: 2 }])
      expect(await rowsOf(app, 'SELECT doubled(4) AS four')).toEqual([{ four: 8 }])
      const definers = await rowsOf(
        app,
        `SELECT DEFINER AS definer FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()
         UNION ALL SELECT DEFINER FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()
         UNION ALL SELECT DEFINER FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()
         UNION ALL SELECT DEFINER FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()`,
      )
      expect(definers).toEqual(Array.from({ length: 5 }, () => ({ definer: `${heir}@127.0.0.1` })))
    } finally {
      await app.end()
    }
  })
})

describe.each(['mariadb', 'postgresql'] as const)('%s: the sweep of temporaries', (name) => {
  const { engine, admin } = engines[name]
  const now = new Date()
  const stale = temporaryNameAt(new Date(now.getTime() - temporaryLifetimeMs - 60_000))
  const staleLogin = temporaryNameAt(new Date(now.getTime() - temporaryLifetimeMs - 120_000))
  const fresh = temporaryNameAt(new Date(now.getTime() - 60_000))
  const customers = `${prefix}_${name.slice(0, 2)}_site`

  beforeAll(async () => {
    for (const database of [stale, fresh, customers]) {
      await engine.createDatabase(admin, database)
      await engine.createUser(admin, database, password(), ['127.0.0.1'])
      await engine.setGrants(admin, database, [{ database, access: 'readwrite' }], ['127.0.0.1'])
    }
    // A lease's login to the customer's database, left behind.
    await engine.createUser(admin, staleLogin, password(), ['127.0.0.1'])
    await engine.setGrants(admin, staleLogin, [{ database: customers, access: 'dump' }], ['127.0.0.1'])
  })
  afterAll(async () => {
    for (const database of [stale, fresh, customers]) {
      await engine.dropUser(admin, database, ['127.0.0.1'])
      await engine.dropDatabase(admin, database)
    }
    await engine.dropUser(admin, staleLogin, ['127.0.0.1'])
  })

  test('lists the temporaries, and drops those older than a run can last, and nothing else', async () => {
    const listed = await engine.namesStartingWith(admin, 'plinth_tmp_')
    expect(listed.databases).toEqual(expect.arrayContaining([stale, fresh]))
    expect(listed.users).toEqual(expect.arrayContaining([stale, fresh, staleLogin]))
    expect([...listed.databases, ...listed.users]).not.toContain(customers)

    const swept = await sweepTemporary(engine, admin, now)
    expect(swept.databases).toContain(stale)
    expect(swept.users).toEqual(expect.arrayContaining([stale, staleLogin]))
    expect([...swept.databases, ...swept.users]).not.toContain(fresh)

    const after = await engine.namesStartingWith(admin, 'plinth_tmp_')
    expect(after.databases).not.toContain(stale)
    expect(after.users).not.toContain(stale)
    expect(after.users).not.toContain(staleLogin)
    expect(after.databases).toContain(fresh)
    expect(after.users).toContain(fresh)
    // The customer's database and login stay, with the login's grants.
    expect((await engine.databaseSizes(admin, [customers])).has(customers)).toBe(true)
    expect(await engine.readGrants(admin, customers, ['127.0.0.1'])).toEqual([
      { database: customers, access: 'readwrite' },
    ])
  })
})

describe('PostgreSQL: a scratch database half made', () => {
  test('its roles without it are listed as the database, and the sweep drops them', async () => {
    const { engine, admin } = engines.postgresql
    const half = temporaryNameAt(new Date(Date.now() - temporaryLifetimeMs - 60_000))
    const root = postgres({ ...admin, database: 'postgres', max: 1, onnotice: () => {} })
    try {
      await root`CREATE ROLE ${root(`${half}__owner`)} NOLOGIN NOINHERIT`
      await root`CREATE ROLE ${root(`${half}__reader`)} NOLOGIN NOINHERIT`
      expect((await engine.namesStartingWith(admin, 'plinth_tmp_')).databases).toContain(half)
      await sweepTemporary(engine, admin, new Date())
      const left = await root`SELECT rolname FROM pg_roles WHERE rolname LIKE ${`${half}%`}`
      expect(left.length).toBe(0)
    } finally {
      await root`DROP ROLE IF EXISTS ${root(`${half}__owner`)}`
      await root`DROP ROLE IF EXISTS ${root(`${half}__reader`)}`
      await root.end()
    }
  })
})
