// The MariaDB adapter against the real server on this machine, proved by logging in as the users it makes.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise'
import type { ServerAccess } from './engine.ts'
import { mariadbEngine } from './mariadb.ts'

const url = new URL(process.env.PLINTH_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306')
const admin: ServerAccess = {
  host: url.hostname,
  port: Number(url.port || 3306),
  username: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
}
/** Where the test users connect from as MariaDB sees it (the server runs with skip_name_resolve). */
const clientHost = '127.0.0.1'

const engine = mariadbEngine()
const prefix = `t${randomBytes(4).toString('hex').slice(0, 6)}`
/** `_` in a grant is a wildcard: a grant on `<p>_shop_a1` left unescaped would also open `<p>_shopxa1`. */
const shop = `${prefix}_shop_a1`
const lookalike = `${prefix}_shopxa1`
const blog = `${prefix}_blog`
const writer = `${prefix}_rw`
const reader = `${prefix}_ro`
const password = () => `pw-${randomBytes(9).toString('base64url')}'"\\`

const passwords = new Map<string, string>()
const opened: Connection[] = []
let root: Connection

async function login(user: string, pass = passwords.get(user) ?? '', database?: string): Promise<Connection> {
  const connection = await mysql.createConnection({
    host: admin.host,
    port: admin.port,
    user,
    password: pass,
    connectTimeout: 5_000,
    ...(database ? { database } : {}),
  })
  opened.push(connection)
  return connection
}

async function select(
  connection: Connection,
  statement: string,
  values: unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const [rows] = await connection.query<RowDataPacket[]>(statement, values)
  return rows
}

/** A killed session notices at its next statement; the server may take a moment to close it. */
async function expectEnded(connection: Connection) {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await connection.query('SELECT 1')
    } catch (error) {
      return error
    }
    await Bun.sleep(50)
  }
  throw new Error('The session is still open')
}

async function accountCount(user: string) {
  return (await select(root, 'SELECT Host FROM mysql.global_priv WHERE User = ?', [user])).length
}

beforeAll(async () => {
  root = await mysql.createConnection({
    host: admin.host,
    port: admin.port,
    user: admin.username,
    password: admin.password,
  })
  for (const name of [shop, lookalike, blog]) await engine.createDatabase(admin, name)
  for (const user of [writer, reader]) {
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, [clientHost])
  }
  await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [clientHost])
  await engine.setGrants(admin, reader, [{ database: shop, access: 'readonly' }], [clientHost])
})

afterAll(async () => {
  for (const connection of opened) connection.destroy()
  const like = `${prefix}\\_%`
  for (const { User, Host } of await select(
    root,
    'SELECT User, Host FROM mysql.global_priv WHERE User LIKE ?',
    [like],
  ))
    await root.query('DROP USER IF EXISTS ?@?', [User, Host])
  for (const { name } of await select(
    root,
    'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
    [like],
  ))
    await root.query('DROP DATABASE IF EXISTS ??', [name])
  root.destroy()
  await engine.close()
})

describe('MariaDB: what the users can do', () => {
  test('a readwrite user creates a table and writes; a readonly user reads it and can neither write nor create', async () => {
    const rw = await login(writer, undefined, shop)
    await rw.query('CREATE TABLE orders (id INT PRIMARY KEY, total INT)')
    await rw.query('INSERT INTO orders VALUES (1, 10), (2, 20)')
    const ro = await login(reader, undefined, shop)
    expect(await select(ro, 'SELECT id, total FROM orders ORDER BY id')).toEqual([
      { id: 1, total: 10 },
      { id: 2, total: 20 },
    ])
    await expect(ro.query('INSERT INTO orders VALUES (3, 30)')).rejects.toMatchObject({ errno: 1142 })
    await expect(ro.query('UPDATE orders SET total = 0')).rejects.toMatchObject({ errno: 1142 })
    await expect(ro.query('CREATE TABLE mine (id INT)')).rejects.toMatchObject({ errno: 1142 })
  })

  test('neither reaches another database, not even the one its database name matches as a pattern', async () => {
    await root.query('CREATE TABLE ??.secrets (id INT)', [lookalike])
    await root.query('CREATE TABLE ??.secrets (id INT)', [blog])
    for (const user of [writer, reader]) {
      const connection = await login(user)
      for (const other of [lookalike, blog]) {
        await expect(connection.query('USE ??', [other])).rejects.toMatchObject({ errno: 1044 })
        await expect(connection.query('SELECT * FROM ??.secrets', [other])).rejects.toMatchObject({
          errno: 1142,
        })
      }
      await expect(connection.query('CREATE TABLE ??.mine (id INT)', [lookalike])).rejects.toMatchObject({
        errno: 1142,
      })
      await expect(login(user, undefined, lookalike)).rejects.toMatchObject({ errno: 1044 })
    }
  })

  test('neither can create users nor grant', async () => {
    for (const user of [writer, reader]) {
      const connection = await login(user, undefined, shop)
      await expect(connection.query("CREATE USER 'intruder'@'%' IDENTIFIED BY 'x'")).rejects.toMatchObject({
        errno: 1227,
      })
      await expect(
        connection.query('GRANT SELECT ON ??.* TO ?@?', [shop, reader, clientHost]),
      ).rejects.toMatchObject({
        errno: 1044,
      })
      await expect(
        connection.query('GRANT SELECT ON ??.* TO ?@? IDENTIFIED BY ?', [shop, 'intruder', '%', 'x']),
      ).rejects.toMatchObject({ errno: 1044 })
    }
    const [row] = await select(root, 'SELECT Priv FROM mysql.global_priv WHERE User = ?', [writer])
    expect(row?.Priv).toMatchObject({ access: 0 })
  })
})

describe('MariaDB: passwords and locks', () => {
  test('setPassword: the old password is refused, the new one works', async () => {
    const old = passwords.get(writer) as string
    const next = password()
    await engine.setPassword(admin, writer, next, [clientHost])
    passwords.set(writer, next)
    await expect(login(writer, old)).rejects.toMatchObject({ errno: 1045 })
    expect(await select(await login(writer), 'SELECT 1 AS one')).toEqual([{ one: 1 }])
  })

  test('the hash the plugin hands over is stored as given, and the password it was made of logs in', async () => {
    const next = password()
    const [row] = await select(root, 'SELECT PASSWORD(?) AS hash', [next])
    await engine.setPassword(admin, writer, String(row?.hash), [clientHost])
    const [stored] = await select(
      root,
      "SELECT JSON_VALUE(Priv, '$.authentication_string') AS hash FROM mysql.global_priv WHERE User = ?",
      [writer],
    )
    expect(stored?.hash).toBe(row?.hash)
    passwords.set(writer, next)
    await login(writer)
    await expect(login(writer, String(row?.hash))).rejects.toMatchObject({ errno: 1045 })
  })

  test('setLocked: login is refused and an open session ends; unlocking lets it in again', async () => {
    const open = await login(writer, undefined, shop)
    await open.query('SELECT 1')
    await engine.setLocked(admin, writer, true, [clientHost])
    await expectEnded(open)
    await expect(login(writer)).rejects.toMatchObject({ errno: 4151 })
    // A killed thread leaves the process list once it has cleaned up, a moment after its client saw the end (longer
    // on a loaded machine): waited for, up to 5 s.
    let sessions: unknown[] = []
    for (let attempt = 0; attempt < 100; attempt++) {
      sessions = await select(root, 'SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ?', [writer])
      if (sessions.length === 0) break
      await Bun.sleep(50)
    }
    expect(sessions).toEqual([])
    await engine.setLocked(admin, writer, true, [clientHost])
    await engine.setLocked(admin, writer, false, [clientHost])
    expect(await select(await login(writer, undefined, shop), 'SELECT COUNT(*) AS n FROM orders')).toEqual([
      { n: 2 },
    ])
  })
})

describe('MariaDB: grants', () => {
  test('setGrants makes the set exact and readGrants answers it', async () => {
    await engine.setGrants(
      admin,
      writer,
      [
        { database: shop, access: 'readwrite' },
        { database: blog, access: 'readonly' },
      ],
      [clientHost],
    )
    expect(await engine.readGrants(admin, writer, [clientHost])).toEqual([
      { database: blog, access: 'readonly' },
      { database: shop, access: 'readwrite' },
    ])
    const inBlog = await login(writer, undefined, blog)
    expect(await select(inBlog, 'SELECT COUNT(*) AS n FROM secrets')).toEqual([{ n: 0 }])
    await expect(inBlog.query('INSERT INTO secrets VALUES (1)')).rejects.toMatchObject({ errno: 1142 })

    // An open session keeps what it had when it entered the database: taking the grant away ends it.
    await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [clientHost])
    await expectEnded(inBlog)
    await expect(login(writer, undefined, blog)).rejects.toMatchObject({ errno: 1044 })
    expect(await engine.readGrants(admin, writer, [clientHost])).toEqual([
      { database: shop, access: 'readwrite' },
    ])
    const [row] = await select(root, 'SELECT Db FROM mysql.db WHERE User = ?', [writer])
    expect(row?.Db).toBe(shop.replaceAll('_', '\\_'))
  })

  test('readwrite to readonly and back changes the privileges exactly', async () => {
    await engine.setGrants(admin, writer, [{ database: shop, access: 'readonly' }], [clientHost])
    const rw = await login(writer, undefined, shop)
    await expect(rw.query('INSERT INTO orders VALUES (9, 9)')).rejects.toMatchObject({ errno: 1142 })
    const privileges = async () =>
      (await select(root, 'SHOW GRANTS FOR ?@?', [writer, clientHost])).map((row) =>
        String(Object.values(row)[0]),
      )
    expect(await privileges()).toContain(
      `GRANT SELECT, SHOW VIEW ON \`${shop.replaceAll('_', '\\_')}\`.* TO \`${writer}\`@\`${clientHost}\``,
    )
    await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [clientHost])
    await (await login(writer, undefined, shop)).query('INSERT INTO orders VALUES (3, 30)')
    expect(await engine.readGrants(admin, writer, [clientHost])).toEqual([
      { database: shop, access: 'readwrite' },
    ])
  })

  test('readGrants maps a hand-made privilege set: any write privilege is readwrite, reading only is readonly', async () => {
    const user = `${prefix}_odd`
    await engine.createUser(admin, user, password(), [clientHost])
    await root.query('GRANT SELECT, INSERT ON ??.* TO ?@?', [shop.replaceAll('_', '\\_'), user, clientHost])
    await root.query('GRANT SHOW VIEW ON ??.* TO ?@?', [blog.replaceAll('_', '\\_'), user, clientHost])
    // A wildcard pattern (unescaped `_`) reads as a second grant beside the escaped one, never as the same.
    await root.query('GRANT SELECT ON ??.* TO ?@?', [shop, user, clientHost])
    const read = await engine.readGrants(admin, user, [clientHost])
    expect(read).toHaveLength(3)
    expect(read).toEqual(
      expect.arrayContaining([
        { database: blog, access: 'readonly' },
        { database: shop, access: 'readwrite' },
        { database: shop, access: 'readonly' },
      ]),
    )
    await engine.setGrants(admin, user, [{ database: shop, access: 'readonly' }], [clientHost])
    expect(await engine.readGrants(admin, user, [clientHost])).toEqual([
      { database: shop, access: 'readonly' },
    ])
    await engine.dropUser(admin, user, [clientHost])
  })

  test('table and routine grants outside the granted databases are revoked too', async () => {
    const user = `${prefix}_obj`
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, [clientHost])
    await root.query('CREATE PROCEDURE ??.hello() SELECT 1', [blog])
    await root.query('GRANT SELECT ON ??.secrets TO ?@?', [lookalike, user, clientHost])
    await root.query('GRANT EXECUTE ON PROCEDURE ??.hello TO ?@?', [blog, user, clientHost])
    const connection = await login(user)
    await connection.query('SELECT * FROM ??.secrets', [lookalike])
    await connection.query('CALL ??.hello()', [blog])
    await engine.setGrants(admin, user, [{ database: shop, access: 'readonly' }], [clientHost])
    expect(await select(root, 'SELECT * FROM mysql.tables_priv WHERE User = ?', [user])).toEqual([])
    expect(await select(root, 'SELECT * FROM mysql.procs_priv WHERE User = ?', [user])).toEqual([])
    const again = await login(user)
    await expect(again.query('SELECT * FROM ??.secrets', [lookalike])).rejects.toMatchObject({ errno: 1142 })
    await expect(again.query('CALL ??.hello()', [blog])).rejects.toMatchObject({ errno: 1370 })
    await engine.dropUser(admin, user, [clientHost])
  })
})

describe('MariaDB: idempotence, hosts, sizes, drops', () => {
  test('createDatabase and createUser twice leave exactly one, with the second password', async () => {
    const name = `${prefix}_twice`
    await engine.createDatabase(admin, name)
    await engine.createDatabase(admin, name)
    expect(
      await select(root, 'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]),
    ).toHaveLength(1)
    const first = password()
    const second = password()
    await engine.createUser(admin, name, first, [clientHost])
    await engine.createUser(admin, name, second, [clientHost])
    expect(await accountCount(name)).toBe(1)
    await expect(login(name, first)).rejects.toMatchObject({ errno: 1045 })
    await login(name, second)
    await engine.setGrants(admin, name, [{ database: name, access: 'readonly' }], [clientHost])
    await engine.setGrants(admin, name, [{ database: name, access: 'readonly' }], [clientHost])
    expect(await select(root, 'SELECT Db FROM mysql.db WHERE User = ?', [name])).toHaveLength(1)
    await engine.dropUser(admin, name, [clientHost])
    await engine.dropUser(admin, name, [clientHost])
    expect(await accountCount(name)).toBe(0)
    await engine.dropDatabase(admin, name)
    await engine.dropDatabase(admin, name)
  })

  test('setHosts adds accounts with the same password, grants and lock, and drops the others', async () => {
    const user = `${prefix}_hosts`
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, [clientHost])
    await engine.setGrants(admin, user, [{ database: shop, access: 'readonly' }], [clientHost])
    await engine.setHosts(admin, user, [clientHost, 'localhost', '192.0.2.%'])
    const accounts = await select(
      root,
      "SELECT Host, JSON_VALUE(Priv, '$.authentication_string') AS hash FROM mysql.global_priv WHERE User = ? ORDER BY Host",
      [user],
    )
    expect(accounts.map((row) => row.Host)).toEqual(['127.0.0.1', '192.0.2.%', 'localhost'])
    expect(new Set(accounts.map((row) => row.hash)).size).toBe(1)
    expect(await select(root, 'SELECT Host FROM mysql.db WHERE User = ? ORDER BY Host', [user])).toHaveLength(
      3,
    )
    // user@localhost is the account a socket login matches: its copied hash takes the same password.
    const [{ socket } = {}] = await select(root, 'SELECT @@socket AS socket')
    const bySocket = await mysql.createConnection({
      socketPath: String(socket),
      user,
      password: passwords.get(user),
      database: shop,
    })
    opened.push(bySocket)
    expect(await select(bySocket, 'SELECT CURRENT_USER() AS account')).toEqual([
      { account: `${user}@localhost` },
    ])
    expect(await select(bySocket, 'SELECT COUNT(*) AS n FROM orders')).toEqual([{ n: 3 }])

    await engine.setLocked(admin, user, true, [clientHost, 'localhost', '192.0.2.%'])
    await engine.setHosts(admin, user, [clientHost, 'localhost', '192.0.2.%', '198.51.100.7'])
    const [added] = await select(
      root,
      "SELECT JSON_VALUE(Priv, '$.account_locked') AS locked FROM mysql.global_priv WHERE User = ? AND Host = ?",
      [user, '198.51.100.7'],
    )
    expect(String(added?.locked)).toBe('1')

    await engine.setHosts(admin, user, [clientHost])
    expect(await select(root, 'SELECT Host FROM mysql.global_priv WHERE User = ?', [user])).toEqual([
      { Host: clientHost },
    ])
    await engine.dropUser(admin, user, [clientHost])
  })

  test('databaseSizes: 0 for an empty database, more once rows are in, nothing for an unknown one', async () => {
    const sizes = await engine.databaseSizes(admin, [shop, lookalike, `${prefix}_nowhere`])
    expect(sizes.get(shop)).toBeGreaterThan(0)
    expect(sizes.has(`${prefix}_nowhere`)).toBe(false)
    const empty = `${prefix}_empty`
    await engine.createDatabase(admin, empty)
    expect((await engine.databaseSizes(admin, [empty])).get(empty)).toBe(0)
    await engine.dropDatabase(admin, empty)
    expect((await engine.databaseSizes(admin, [])).size).toBe(0)
  })

  test('dropDatabase: gone from the server, its grants gone with it, open sessions ended', async () => {
    const name = `${prefix}_gone`
    const user = `${prefix}_gone_u`
    passwords.set(user, password())
    await engine.createDatabase(admin, name)
    await engine.createUser(admin, user, passwords.get(user) as string, [clientHost])
    await engine.setGrants(admin, user, [{ database: name, access: 'readwrite' }], [clientHost])
    const open = await login(user, undefined, name)
    await open.query('CREATE TABLE t (id INT)')
    await open.query('BEGIN')
    await open.query('INSERT INTO t VALUES (1)')
    await engine.dropDatabase(admin, name)
    await engine.dropDatabase(admin, name)
    expect(
      await select(root, 'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]),
    ).toEqual([])
    expect(await select(root, 'SELECT Db FROM mysql.db WHERE User = ?', [user])).toEqual([])
    await expectEnded(open)
    // Made again under the same name, the database is not open to the old user.
    await engine.createDatabase(admin, name)
    await expect(login(user, undefined, name)).rejects.toMatchObject({ errno: 1044 })
    await engine.dropDatabase(admin, name)
    await engine.dropUser(admin, user, [clientHost])
  })

  test('dropUser: login refused, open session ended', async () => {
    const user = `${prefix}_bye`
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, [clientHost, 'localhost'])
    const open = await login(user)
    await engine.dropUser(admin, user, [clientHost, 'localhost'])
    await expectEnded(open)
    await expect(login(user)).rejects.toMatchObject({ errno: 1045 })
    expect(await accountCount(user)).toBe(0)
  })
})

describe('MariaDB: what the adapter refuses to touch', () => {
  test('an existing account with global privileges is not taken over', async () => {
    const user = `${prefix}_admin`
    await root.query("CREATE USER ?@? IDENTIFIED BY 'keep'", [user, clientHost])
    await root.query('GRANT PROCESS ON *.* TO ?@?', [user, clientHost])
    const [before] = await select(root, 'SELECT Priv FROM mysql.global_priv WHERE User = ?', [user])
    await expect(engine.createUser(admin, user, 'taken', [clientHost])).rejects.toMatchObject({
      code: 'server_error',
    })
    await expect(engine.setPassword(admin, user, 'taken', [clientHost])).rejects.toMatchObject({
      code: 'server_error',
    })
    await expect(engine.dropUser(admin, user, [clientHost])).rejects.toMatchObject({ code: 'server_error' })
    await expect(engine.setLocked(admin, user, true, [clientHost])).rejects.toMatchObject({
      code: 'server_error',
    })
    expect(await select(root, 'SELECT Priv FROM mysql.global_priv WHERE User = ?', [user])).toEqual([
      before as Record<string, unknown>,
    ])
    await login(user, 'keep')
  })

  test('a database the panel did not create is not adopted', async () => {
    const name = `${prefix}_foreign`
    await root.query('CREATE DATABASE ??', [name])
    await expect(engine.createDatabase(admin, name)).rejects.toMatchObject({ code: 'server_error' })
    expect(
      await select(root, 'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]),
    ).toHaveLength(1)
  })

  test('a database its readwrite user dropped and made again (losing the panel’s mark) is still dropped', async () => {
    // The tenant holds DROP and CREATE on its database; the panel's record, not the mark, says the name is its.
    const name = `${prefix}_remade`
    await engine.createDatabase(admin, name)
    await root.query('DROP DATABASE ??', [name])
    await root.query('CREATE DATABASE ??', [name])
    await engine.dropDatabase(admin, name)
    expect(
      await select(root, 'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]),
    ).toHaveLength(0)
  })

  test('names outside the pattern and system databases are refused before any statement', async () => {
    // A closed port: were a check missing, the call would fail as unreachable instead.
    const nowhere = { ...admin, port: 1 }
    await expect(engine.dropDatabase(nowhere, 'mysql')).rejects.toThrow('system database')
    await expect(engine.createDatabase(nowhere, 'shop`; DROP DATABASE x')).rejects.toThrow('Invalid database')
    await expect(engine.createUser(nowhere, 'a__b', 'x', ['%'])).rejects.toThrow('Invalid user')
    await expect(engine.createUser(nowhere, 'ab', 'x', ["%'"])).rejects.toThrow('Invalid host')
  })

  test('the error of a statement carrying a password does not carry it', async () => {
    const weak = `${prefix}_reads`
    await root.query("CREATE USER ?@? IDENTIFIED BY 'reads'", [weak, clientHost])
    await root.query('GRANT SELECT ON *.* TO ?@?', [weak, clientHost])
    const secret = 'never-shown-9a7c'
    const error = (await engine
      .createUser({ ...admin, username: weak, password: 'reads' }, `${prefix}_x`, secret, [clientHost])
      .catch((caught: unknown) => caught)) as Error
    expect(error).toMatchObject({ code: 'server_privileges_missing' })
    for (const shown of [error.message, error.stack, JSON.stringify(error), Bun.inspect(error)])
      expect(shown).not.toContain(secret)
    await engine.close({ ...admin, username: weak, password: 'reads' })
  })
})

describe('MariaDB: check', () => {
  test('the administrator passes and gets the version', async () => {
    expect((await engine.check(admin)).version).toMatch(/^10\.|^1[1-9]\./)
  })

  test('a wrong password is server_login_failed', async () => {
    await expect(engine.check({ ...admin, password: 'wrong' })).rejects.toMatchObject({
      code: 'server_login_failed',
    })
  })

  test('a closed port is server_unreachable', async () => {
    await expect(engine.check({ ...admin, host: '127.0.0.1', port: 1 })).rejects.toMatchObject({
      code: 'server_unreachable',
    })
  })

  test('a user without CREATE USER and GRANT OPTION is server_privileges_missing', async () => {
    const user = `${prefix}_weak`
    await root.query("CREATE USER ?@? IDENTIFIED BY 'weak'", [user, clientHost])
    await root.query('GRANT CREATE, SELECT ON *.* TO ?@?', [user, clientHost])
    const error = await engine
      .check({ ...admin, username: user, password: 'weak' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'server_privileges_missing' })
    expect(String(error)).toContain('CREATE USER')
    expect(String(error)).toContain('GRANT OPTION')
  })
})
