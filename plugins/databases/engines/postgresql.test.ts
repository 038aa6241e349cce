// The PostgreSQL adapter against the real server on this machine, proved by logging in as the users it makes.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { requirePasswordsForTenants } from '../test-servers.ts'
import type { ServerAccess } from './engine.ts'
import { postgresqlEngine, scramSecret, tenantGroupRole } from './postgresql.ts'

const url = new URL(process.env.PLINTH_TEST_POSTGRESQL_URL ?? 'postgres://postgres@127.0.0.1:5432')
const admin: ServerAccess = {
  host: url.hostname,
  port: Number(url.port || 5432),
  username: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
}

const engine = postgresqlEngine()
const prefix = `t${randomBytes(4).toString('hex').slice(0, 6)}`
const shop = `${prefix}_shop_a1`
const blog = `${prefix}_blog`
const writer = `${prefix}_rw`
const reader = `${prefix}_ro`
const password = () => `Pw-${randomBytes(9).toString('base64url')}'"\\`

const passwords = new Map<string, string>()
const opened: postgres.Sql[] = []
let root: postgres.Sql

function login(user: string, database: string, pass = passwords.get(user) ?? ''): postgres.Sql {
  const sql = postgres({
    host: admin.host,
    port: admin.port,
    username: user,
    password: pass,
    database,
    max: 1,
    connect_timeout: 5,
    onnotice: () => {},
  })
  opened.push(sql)
  return sql
}

/** One query as `user` on a connection of its own, so a refused login shows as that query's error. */
async function asUser(user: string, database: string, pass?: string) {
  const sql = login(user, database, pass)
  return [...(await sql`SELECT current_user AS acting, session_user AS login`)]
}

/** A session open as `user`: its connection and the server's process id of it. */
async function session(user: string, database: string) {
  const sql = login(user, database)
  const [row] = await sql`SELECT pg_backend_pid() AS pid`
  return { sql, pid: Number(row?.pid) }
}

/** Whether the server still runs the session `pid` (ended ones leave at once: the adapter waits for them). */
async function running(pid: number) {
  return (await root`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`).length > 0
}

/** The tables of `database` and their owners, read as the administrator. */
async function tablesOf(database: string) {
  const sql = login(admin.username, database, admin.password)
  return [
    ...(await sql`SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`),
  ]
}

async function sessionsOf(user: string) {
  return (await root`SELECT pid FROM pg_stat_activity WHERE usename = ${user}`).length
}

async function roleCount(role: string) {
  return (await root`SELECT 1 FROM pg_roles WHERE rolname = ${role}`).length
}

beforeAll(async () => {
  root = postgres({ ...admin, database: 'postgres', max: 2, onnotice: () => {} })
  // The machine's PostgreSQL trusts local logins; this makes it ask the tenants' group for their SCRAM password,
  // so a wrong password is refused here as on a production server.
  await requirePasswordsForTenants()
  for (const name of [shop, blog]) await engine.createDatabase(admin, name)
  for (const user of [writer, reader]) {
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, ['127.0.0.1'])
  }
  await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [])
  await engine.setGrants(admin, reader, [{ database: shop, access: 'readonly' }], [])
})

afterAll(async () => {
  await Promise.all(opened.map((sql) => sql.end({ timeout: 1 })))
  const like = `${prefix}\\_%`
  for (const { datname } of await root`SELECT datname FROM pg_database WHERE datname LIKE ${like}`)
    await root`DROP DATABASE IF EXISTS ${root(String(datname))} WITH (FORCE)`
  const roles = await root`SELECT rolname FROM pg_roles WHERE rolname LIKE ${like}`
  for (const { rolname } of roles) {
    const role = String(rolname)
    await root`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = ${role}`
    const databases = await root`
      SELECT DISTINCT d.datname FROM pg_shdepend s JOIN pg_database d ON d.oid = s.dbid
       WHERE s.refobjid = (SELECT oid FROM pg_roles WHERE rolname = ${role})`
    for (const { datname } of databases) {
      const db = postgres({ ...admin, database: String(datname), max: 1, onnotice: () => {} })
      await db`DROP OWNED BY ${db(role)}`
      await db.end()
    }
  }
  for (const { rolname } of roles) await root`DROP ROLE IF EXISTS ${root(String(rolname))}`
  await root.end()
  await engine.close()
})

describe('PostgreSQL: what the users can do', () => {
  test('a readwrite user creates a table and writes; a readonly user reads it and can neither write nor create', async () => {
    const rw = login(writer, shop)
    expect([...(await rw`SELECT current_user AS acting`)]).toEqual([{ acting: `${shop}__owner` }])
    await rw`CREATE TABLE orders (id serial PRIMARY KEY, total int)`
    await rw`INSERT INTO orders (total) VALUES (10), (20)`
    expect(await tablesOf(shop)).toEqual([{ tablename: 'orders', tableowner: `${shop}__owner` }])

    const ro = login(reader, shop)
    expect([...(await ro`SELECT id, total FROM orders ORDER BY id`)]).toEqual([
      { id: 1, total: 10 },
      { id: 2, total: 20 },
    ])
    await expect(ro`INSERT INTO orders (total) VALUES (30)`).rejects.toMatchObject({ code: '42501' })
    await expect(ro`UPDATE orders SET total = 0`).rejects.toMatchObject({ code: '42501' })
    await expect(ro`CREATE TABLE mine (id int)`).rejects.toMatchObject({ code: '42501' })
    await expect(ro`CREATE TEMPORARY TABLE mine (id int)`).rejects.toMatchObject({ code: '42501' })
    await expect(ro`CREATE SCHEMA mine`).rejects.toMatchObject({ code: '42501' })
    // Large objects need no table privilege: without the panel's revocation a reader could store any amount.
    await expect(ro`SELECT lo_from_bytea(0, 'x'::bytea)`).rejects.toMatchObject({ code: '42501' })
    await expect(ro`SELECT lo_create(0)`).rejects.toMatchObject({ code: '42501' })
    await rw`SELECT lo_unlink(lo_from_bytea(0, 'x'::bytea))`
  })

  test('neither can connect to another database', async () => {
    for (const user of [writer, reader])
      await expect(asUser(user, blog)).rejects.toMatchObject({ code: '42501' })
  })

  test('neither can create roles nor grant', async () => {
    for (const user of [writer, reader]) {
      const sql = login(user, shop)
      await expect(sql`CREATE ROLE intruder LOGIN`).rejects.toMatchObject({ code: '42501' })
      await expect(sql`GRANT ${sql(`${shop}__owner`)} TO ${sql(reader)}`).rejects.toMatchObject({
        code: '42501',
      })
      await expect(sql`GRANT CONNECT ON DATABASE ${sql(blog)} TO ${sql(user)}`).rejects.toMatchObject({
        code: '42501',
      })
      await expect(sql`ALTER ROLE ${sql(user)} CREATEDB`).rejects.toMatchObject({ code: '42501' })
    }
    const [role] = await root`
      SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolinherit
        FROM pg_roles WHERE rolname = ${writer}`
    expect(role).toEqual({
      rolsuper: false,
      rolcreatedb: false,
      rolcreaterole: false,
      rolreplication: false,
      rolbypassrls: false,
      rolinherit: true,
    })
  })
})

describe('PostgreSQL: passwords and locks', () => {
  test('setPassword: the old password is refused, the new one works', async () => {
    const old = passwords.get(writer) as string
    const next = password()
    await engine.setPassword(admin, writer, next, [])
    passwords.set(writer, next)
    await expect(asUser(writer, shop, old)).rejects.toMatchObject({ code: '28P01' })
    expect(await asUser(writer, shop)).toEqual([{ acting: `${shop}__owner`, login: writer }])
  })

  test('the SCRAM secret the plugin hands over is stored as given, and the password it was made of logs in', async () => {
    const next = password()
    const secret = await scramSecret(next)
    await engine.setPassword(admin, writer, secret, [])
    const [stored] = await root`SELECT rolpassword FROM pg_authid WHERE rolname = ${writer}`
    expect(stored?.rolpassword).toBe(secret)
    passwords.set(writer, next)
    await asUser(writer, shop)
  })

  test('a password outside ASCII is hashed by the server, and logs in', async () => {
    const next = `Pässwörd-Ünïcode-${randomBytes(4).toString('hex')}`
    await engine.setPassword(admin, writer, next, [])
    const [stored] = await root`SELECT rolpassword FROM pg_authid WHERE rolname = ${writer}`
    expect(String(stored?.rolpassword)).toStartWith('SCRAM-SHA-256$')
    passwords.set(writer, next)
    await asUser(writer, shop)
    // The password went as a parameter and was read back by the server: nothing of it stays in its settings.
    expect([...(await root`SELECT current_setting('plinth.password', true) AS left`)]).toEqual([
      { left: null },
    ])
  })

  test('scramSecret computes the secret the server computes itself for the same salt', async () => {
    const role = `${prefix}_scram`
    const plain = 'Plain-Text-Password-1!'
    await root`CREATE ROLE ${root(role)} NOLOGIN`
    await root.unsafe(`ALTER ROLE ${role} PASSWORD 'Plain-Text-Password-1!'`)
    const [stored] = await root`SELECT rolpassword FROM pg_authid WHERE rolname = ${role}`
    const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(String(stored?.rolpassword))
    expect(match).not.toBeNull()
    const ours = await scramSecret(plain, Buffer.from(match?.[2] ?? '', 'base64'), Number(match?.[1]))
    expect(ours).toBe(String(stored?.rolpassword))
    await root`DROP ROLE ${root(role)}`
  })

  test('setLocked: login is refused and an open session ends; unlocking lets it in again', async () => {
    const open = await session(writer, shop)
    await engine.setLocked(admin, writer, true, [])
    expect(await running(open.pid)).toBe(false)
    expect(await sessionsOf(writer)).toBe(0)
    await expect(open.sql`SELECT 1`).rejects.toMatchObject({ code: '28000' })
    await expect(asUser(writer, shop)).rejects.toMatchObject({ code: '28000' })
    await engine.setLocked(admin, writer, true, [])
    await engine.setLocked(admin, writer, false, [])
    expect([...(await login(writer, shop)`SELECT count(*)::int AS n FROM orders`)]).toEqual([{ n: 2 }])
  })
})

describe('PostgreSQL: grants', () => {
  test('setGrants makes the set exact and readGrants answers it', async () => {
    await engine.setGrants(
      admin,
      writer,
      [
        { database: shop, access: 'readwrite' },
        { database: blog, access: 'readonly' },
      ],
      [],
    )
    expect(await engine.readGrants(admin, writer, [])).toEqual([
      { database: blog, access: 'readonly' },
      { database: shop, access: 'readwrite' },
    ])
    const inBlog = await session(writer, blog)
    expect([...(await inBlog.sql`SELECT current_user AS acting`)]).toEqual([{ acting: writer }])
    await expect(inBlog.sql`CREATE TABLE mine (id int)`).rejects.toMatchObject({ code: '42501' })

    // An open session keeps the role it set at login whatever is revoked after: taking the grant away ends it.
    await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [])
    expect(await running(inBlog.pid)).toBe(false)
    await expect(asUser(writer, blog)).rejects.toMatchObject({ code: '42501' })
    expect(await engine.readGrants(admin, writer, [])).toEqual([{ database: shop, access: 'readwrite' }])
  })

  test('readwrite to readonly and back: the login role and what it may do follow', async () => {
    const writing = await session(writer, shop)
    await engine.setGrants(admin, writer, [{ database: shop, access: 'readonly' }], [])
    expect(await running(writing.pid)).toBe(false)
    const rw = login(writer, shop)
    expect([...(await rw`SELECT current_user AS acting`)]).toEqual([{ acting: writer }])
    expect([...(await rw`SELECT count(*)::int AS n FROM orders`)]).toEqual([{ n: 2 }])
    await expect(rw`INSERT INTO orders (total) VALUES (1)`).rejects.toMatchObject({ code: '42501' })
    expect(await engine.readGrants(admin, writer, [])).toEqual([{ database: shop, access: 'readonly' }])
    const settings = await root`
      SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = ${writer}`
    expect([...settings]).toEqual([])

    await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [])
    await login(writer, shop)`INSERT INTO orders (total) VALUES (30)`
    expect(await engine.readGrants(admin, writer, [])).toEqual([{ database: shop, access: 'readwrite' }])
  })

  test('a table its creator made as itself is readable by a reader once granted', async () => {
    // A readwrite user may leave the owner role (RESET ROLE): what it creates is then its own, outside the default
    // privileges. Granting a reader gives SELECT on the tables already there, whoever made them.
    const rw = login(writer, shop)
    await rw`RESET ROLE`
    await rw`CREATE TABLE own_table (id int)`
    const user = `${prefix}_late`
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, [])
    await engine.setGrants(admin, user, [{ database: shop, access: 'readonly' }], [])
    expect([...(await login(user, shop)`SELECT count(*)::int AS n FROM own_table`)]).toEqual([{ n: 0 }])
    await engine.dropUser(admin, user, [])
  })

  test('a grant on a database that is not set up is refused', async () => {
    await expect(
      engine.setGrants(admin, reader, [{ database: `${prefix}_nowhere`, access: 'readonly' }], []),
    ).rejects.toMatchObject({ code: 'server_error' })
    expect(await engine.readGrants(admin, reader, [])).toEqual([{ database: shop, access: 'readonly' }])
  })
})

describe('PostgreSQL: idempotence, sizes, drops', () => {
  test('createDatabase and createUser twice leave exactly one, with the second password', async () => {
    const name = `${prefix}_twice`
    await engine.createDatabase(admin, name)
    await engine.createDatabase(admin, name)
    expect(await root`SELECT datname FROM pg_database WHERE datname = ${name}`).toHaveLength(1)
    expect(await roleCount(`${name}__owner`)).toBe(1)
    expect(await roleCount(`${name}__reader`)).toBe(1)
    const first = password()
    const second = password()
    await engine.createUser(admin, name, first, [])
    await engine.createUser(admin, name, second, [])
    expect(await roleCount(name)).toBe(1)
    const [member] = await root`
      SELECT count(*)::int AS n FROM pg_auth_members m
        JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u ON u.oid = m.member
       WHERE u.rolname = ${name} AND g.rolname = ${tenantGroupRole}`
    expect(member?.n).toBe(1)
    await engine.setGrants(admin, name, [{ database: name, access: 'readwrite' }], [])
    await engine.setGrants(admin, name, [{ database: name, access: 'readwrite' }], [])
    await expect(asUser(name, name, first)).rejects.toMatchObject({ code: '28P01' })
    expect(await asUser(name, name, second)).toEqual([{ acting: `${name}__owner`, login: name }])
    await engine.dropUser(admin, name, [])
    await engine.dropUser(admin, name, [])
    expect(await roleCount(name)).toBe(0)
    await engine.dropDatabase(admin, name)
    await engine.dropDatabase(admin, name)
    expect(await root`SELECT datname FROM pg_database WHERE datname = ${name}`).toHaveLength(0)
  })

  test('databaseSizes: larger once rows are in, nothing for an unknown database', async () => {
    const before = (await engine.databaseSizes(admin, [blog])).get(blog) ?? 0
    expect(before).toBeGreaterThan(0)
    await engine.setGrants(admin, writer, [{ database: blog, access: 'readwrite' }], [])
    const rw = login(writer, blog)
    await rw`CREATE TABLE filler AS SELECT g AS id, repeat('x', 200) AS text FROM generate_series(1, 20000) g`
    const sizes = await engine.databaseSizes(admin, [blog, shop, `${prefix}_nowhere`])
    expect(sizes.get(blog)).toBeGreaterThan(before + 2_000_000)
    expect(sizes.get(shop)).toBeGreaterThan(0)
    expect(sizes.has(`${prefix}_nowhere`)).toBe(false)
    expect((await engine.databaseSizes(admin, [])).size).toBe(0)
    await engine.setGrants(admin, writer, [{ database: shop, access: 'readwrite' }], [])
  })

  test('dropDatabase: gone from the server with its roles, its sessions ended', async () => {
    const name = `${prefix}_gone`
    const user = `${prefix}_gone_u`
    passwords.set(user, password())
    await engine.createDatabase(admin, name)
    await engine.createUser(admin, user, passwords.get(user) as string, [])
    await engine.setGrants(admin, user, [{ database: name, access: 'readwrite' }], [])
    const open = await session(user, name)
    await open.sql`CREATE TABLE t (id int)`
    await engine.dropDatabase(admin, name)
    await engine.dropDatabase(admin, name)
    expect([...(await root`SELECT datname FROM pg_database WHERE datname = ${name}`)]).toEqual([])
    expect(await roleCount(`${name}__owner`)).toBe(0)
    expect(await roleCount(`${name}__reader`)).toBe(0)
    expect(await running(open.pid)).toBe(false)
    await expect(open.sql`SELECT 1`).rejects.toMatchObject({ code: '3D000' })
    expect(await engine.readGrants(admin, user, [])).toEqual([])
    await engine.dropUser(admin, user, [])
  })

  test('dropUser: login refused, open session ended, and what it owned stays in its database', async () => {
    const user = `${prefix}_bye`
    passwords.set(user, password())
    await engine.createUser(admin, user, passwords.get(user) as string, [])
    await engine.setGrants(admin, user, [{ database: shop, access: 'readwrite' }], [])
    const open = await session(user, shop)
    await open.sql`RESET ROLE`
    await open.sql`CREATE TABLE left_behind (id int)`
    await engine.dropUser(admin, user, [])
    expect(await running(open.pid)).toBe(false)
    await expect(open.sql`SELECT 1`).rejects.toMatchObject({ code: '28000' })
    await expect(asUser(user, shop)).rejects.toMatchObject({ code: '28000' })
    expect(await roleCount(user)).toBe(0)
    expect(await tablesOf(shop)).toContainEqual({ tablename: 'left_behind', tableowner: `${shop}__owner` })
    await engine.dropUser(admin, user, [])
  })
})

describe('PostgreSQL: what the adapter refuses to touch', () => {
  test('an existing role outside the tenants’ group is not taken over', async () => {
    const role = `${prefix}_app`
    await root`CREATE ROLE ${root(role)} LOGIN`
    await root.unsafe(`ALTER ROLE ${role} PASSWORD 'Keep-This-Password-1'`)
    const [before] = await root`SELECT rolpassword, rolcanlogin FROM pg_authid WHERE rolname = ${role}`
    await expect(engine.createUser(admin, role, 'Taken-Password-123', [])).rejects.toMatchObject({
      code: 'server_error',
    })
    await expect(engine.setPassword(admin, role, 'Taken-Password-123', [])).rejects.toMatchObject({
      code: 'server_error',
    })
    await expect(engine.setLocked(admin, role, true, [])).rejects.toMatchObject({ code: 'server_error' })
    await expect(engine.dropUser(admin, role, [])).rejects.toMatchObject({ code: 'server_error' })
    await expect(engine.setGrants(admin, role, [], [])).rejects.toMatchObject({ code: 'server_error' })
    expect([...(await root`SELECT rolpassword, rolcanlogin FROM pg_authid WHERE rolname = ${role}`)]).toEqual(
      [before as postgres.Row],
    )
  })

  test('a member of the group with privileges of its own is not touched either', async () => {
    const role = `${prefix}_boss`
    await root`CREATE ROLE ${root(role)} LOGIN CREATEDB IN ROLE ${root(tenantGroupRole)}`
    await expect(engine.setPassword(admin, role, 'Taken-Password-123', [])).rejects.toMatchObject({
      code: 'server_error',
    })
    await expect(engine.dropUser(admin, role, [])).rejects.toMatchObject({ code: 'server_error' })
    expect(await roleCount(role)).toBe(1)
  })

  test('a database the panel did not create is neither adopted nor dropped', async () => {
    const name = `${prefix}_foreign`
    await root`CREATE DATABASE ${root(name)}`
    await expect(engine.createDatabase(admin, name)).rejects.toMatchObject({ code: 'server_error' })
    await expect(engine.dropDatabase(admin, name)).rejects.toMatchObject({ code: 'server_error' })
    expect(await root`SELECT datname FROM pg_database WHERE datname = ${name}`).toHaveLength(1)
    const [acl] = await root`SELECT datacl FROM pg_database WHERE datname = ${name}`
    expect(acl?.datacl).toBeNull()
  })

  test('the error of a statement carrying a password does not carry it', async () => {
    const weak = `${prefix}_nocreaterole`
    await root`CREATE ROLE ${root(weak)} LOGIN`
    const secret = `Pässwörd-never-shown-${randomBytes(3).toString('hex')}`
    const error = (await engine
      .setPassword({ ...admin, username: weak, password: '' }, reader, secret, [])
      .catch((caught: unknown) => caught)) as Error
    expect(error).toMatchObject({ code: 'server_privileges_missing' })
    for (const shown of [error.message, error.stack, JSON.stringify(error), Bun.inspect(error)])
      expect(shown).not.toContain(secret)
    await engine.close({ ...admin, username: weak, password: '' })
  })

  test('names outside the pattern and system databases are refused before any statement', async () => {
    // A closed port: were a check missing, the call would fail as unreachable instead.
    const nowhere = { ...admin, port: 1 }
    await expect(engine.dropDatabase(nowhere, 'postgres')).rejects.toThrow('system database')
    await expect(engine.dropDatabase(nowhere, 'template1')).rejects.toThrow('system database')
    await expect(engine.createDatabase(nowhere, 'x"; DROP DATABASE y; --')).rejects.toThrow(
      'Invalid database',
    )
    await expect(engine.createUser(nowhere, 'a__owner', 'x', [])).rejects.toThrow('Invalid user')
    await expect(engine.setPassword(nowhere, 'ab', 'bad\0password', [])).rejects.toThrow('NUL')
  })
})

describe('PostgreSQL: check', () => {
  test('the administrator passes and gets the version', async () => {
    expect((await engine.check(admin)).version).toMatch(/^1[4-9]/)
  })

  test('a wrong password is server_login_failed', async () => {
    // The machine trusts logins outside the tenants' group over TCP, so the superuser gets in with any password:
    // that is the server's choice, not the adapter's. A tenant login, which must give its password, shows it.
    expect((await engine.check({ ...admin, password: 'wrong' })).version).toMatch(/^1[4-9]/)
    await expect(engine.check({ ...admin, username: reader, password: 'wrong' })).rejects.toMatchObject({
      code: 'server_login_failed',
    })
    await expect(engine.check({ ...admin, username: `${prefix}_nobody` })).rejects.toMatchObject({
      code: 'server_login_failed',
    })
  })

  test('a closed port is server_unreachable', async () => {
    await expect(engine.check({ ...admin, host: '127.0.0.1', port: 1 })).rejects.toMatchObject({
      code: 'server_unreachable',
    })
  })

  test('a role that is no superuser and lacks CREATEDB and CREATEROLE is server_privileges_missing', async () => {
    const role = `${prefix}_weak`
    await root`CREATE ROLE ${root(role)} LOGIN`
    await root.unsafe(`ALTER ROLE ${role} PASSWORD 'Weak-Password-123'`)
    const error = await engine
      .check({ ...admin, username: role, password: 'Weak-Password-123' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'server_privileges_missing' })
    expect(String(error)).toContain('CREATEDB')
  })
})

describe('PostgreSQL: an administrator that is not a superuser', () => {
  test('with CREATEDB, CREATEROLE and pg_signal_backend it provisions, locks and drops', async () => {
    const boss = `${prefix}_dba`
    await root`CREATE ROLE ${root(boss)} LOGIN CREATEDB CREATEROLE IN ROLE pg_signal_backend`
    const delegated: ServerAccess = { ...admin, username: boss, password: '' }
    await engine.check(delegated)
    const name = `${prefix}_delegated`
    const user = `${prefix}_delegated_u`
    const viewer = `${prefix}_delegated_v`
    passwords.set(user, password())
    passwords.set(viewer, password())
    await engine.createDatabase(delegated, name)
    await engine.createUser(delegated, user, passwords.get(user) as string, [])
    await engine.createUser(delegated, viewer, passwords.get(viewer) as string, [])
    await engine.setGrants(delegated, user, [{ database: name, access: 'readwrite' }], [])
    await engine.setGrants(delegated, viewer, [{ database: name, access: 'readonly' }], [])
    await login(user, name)`CREATE TABLE t AS SELECT 1 AS id`
    expect([...(await login(viewer, name)`SELECT id FROM t`)]).toEqual([{ id: 1 }])
    const open = await session(user, name)
    await engine.setLocked(delegated, user, true, [])
    expect(await running(open.pid)).toBe(false)
    await engine.dropUser(delegated, user, [])
    await engine.dropUser(delegated, viewer, [])
    await engine.dropDatabase(delegated, name)
    expect([...(await root`SELECT datname FROM pg_database WHERE datname = ${name}`)]).toEqual([])
    await engine.close(delegated)
  })
})
