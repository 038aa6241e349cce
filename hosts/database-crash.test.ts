// SIGKILL in the middle of creating a database and its user, black-box: the real server process is killed right
// after the database server did the work and before the panel recorded it, then started again on the same
// DATA_DIR; the database and the login must each exist exactly once on the server, and the login work with the
// password the panel showed.

import { afterAll, describe, expect, test } from 'bun:test'
import mysql from 'mysql2/promise'
import postgres from 'postgres'
import type { Database, DatabaseUser } from '../plugins/databases/contract.ts'
import type { EngineName } from '../plugins/databases/engines/engine.ts'
import {
  mariadbAdmin,
  mariadbAdminOptions,
  postgresqlAdmin,
  requirePasswordsForTenants,
} from '../plugins/databases/test-servers.ts'
import { apiClient, cliStaffToken, createProcessTracker, killHard } from './testing/host-process.ts'

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-db-crash-')
const leaseMs = '2000'
const admins = { mariadb: mariadbAdmin, postgresql: postgresqlAdmin }
const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  await cleanup()
  for (const undo of cleanups) await undo().catch(() => {})
})

/** How many databases and logins of these names the server holds (MariaDB: one account per allowed host). */
async function countOnServer(engine: EngineName, database: string, user: string) {
  if (engine === 'mariadb') {
    const admin = await mysql.createConnection(mariadbAdminOptions)
    const [dbs] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [database],
    )
    const [accounts] = await admin.query<mysql.RowDataPacket[]>(
      'SELECT Host FROM mysql.user WHERE User = ?',
      [user],
    )
    await admin.end()
    return { databases: dbs.length, accounts: accounts.map((row) => String(row.Host)).sort() }
  }
  const admin = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  const [dbs] = await admin`select count(*)::int as n from pg_database where datname = ${database}`
  const roles = await admin`select rolname from pg_roles where rolname = ${user}`
  await admin.end()
  return { databases: Number(dbs?.n), accounts: roles.map(() => '*') }
}

/** Logs in as the user on its database and reads one row: the password the panel showed works. */
async function logsIn(engine: EngineName, user: string, password: string, database: string): Promise<void> {
  const { host, port } = admins[engine]
  if (engine === 'mariadb') {
    const connection = await mysql.createConnection({ host, port, user, password, database })
    await connection.query('SELECT 1')
    await connection.end()
    return
  }
  const sql = postgres({ host, port, username: user, password, database, max: 1, onnotice: () => {} })
  await sql`select 1`
  await sql.end()
}

/** Drops what a scenario left on the server, whatever the panel thinks. */
function dropLater(engine: EngineName, database: string, user: string) {
  cleanups.push(async () => {
    if (engine === 'mariadb') {
      const admin = await mysql.createConnection(mariadbAdminOptions)
      await admin.query('DROP DATABASE IF EXISTS ??', [database])
      const [accounts] = await admin.query<mysql.RowDataPacket[]>(
        'SELECT Host FROM mysql.user WHERE User = ?',
        [user],
      )
      for (const row of accounts) await admin.query('DROP USER IF EXISTS ?@?', [user, row.Host])
      await admin.end()
      return
    }
    const admin = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
    await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await admin.unsafe(`DROP ROLE IF EXISTS ${user}`)
    await admin.unsafe(`DROP ROLE IF EXISTS ${database}__owner`)
    await admin.unsafe(`DROP ROLE IF EXISTS ${database}__reader`)
    await admin.end()
  })
}

describe.each([
  ['mariadb', 'after-create-database'],
  ['mariadb', 'after-create-user'],
  ['postgresql', 'after-create-database'],
  ['postgresql', 'after-create-user'],
] as const)('on %s, killed %s', (engine, hold) => {
  test('after the restart the database and the login exist exactly once, and the shown password works', async () => {
    if (engine === 'postgresql') await requirePasswordsForTenants()
    const dataDir = tempDataDir()
    const settings = { JOB_LEASE_MS: leaseMs }
    const first = await startStandalone(
      dataDir,
      { ...settings, DATABASE_HOLD: hold },
      'hosts/testing/held-database-host.ts',
    )
    const token = await cliStaffToken(runCli, dataDir)
    const call = apiClient(first, token)
    const admin = admins[engine]
    const server = await call<{ id: string }>('POST', '/database-servers', {
      name: `crash-${engine}`,
      engine,
      host: admin.host,
      port: admin.port,
      username: admin.username,
      password: admin.password,
    })
    expect(server.status).toBe(201)
    const customer = await call<{ id: string }>('POST', '/customers', { name: 'Acme' })
    const database = await call<Database>('POST', '/databases', {
      customerId: customer.body.id,
      engine,
      name: 'crash',
    })
    expect(database.status).toBe(201)
    const user = await call<DatabaseUser & { password: string }>('POST', '/database-users', {
      customerId: customer.body.id,
      name: 'crash',
      grants: [{ databaseId: database.body.id, access: 'readwrite' }],
    })
    expect(user.status).toBe(201)
    dropLater(engine, database.body.name, user.body.username)

    await first.stdout.waitFor(new RegExp(`database-hold: ${hold}`))
    await killHard(first)
    // The server holds the work of the killed run; the panel has not recorded it.
    const before = await countOnServer(engine, database.body.name, user.body.username)
    if (hold === 'after-create-database') expect(before.databases).toBe(1)
    else expect(before.accounts.length).toBeGreaterThan(0)

    const second = await startStandalone(dataDir, settings)
    const again = apiClient(second, token)
    const deadline = Date.now() + 30_000
    for (;;) {
      const [db, login] = [
        await again<Database>('GET', `/databases/${database.body.id}`),
        await again<DatabaseUser>('GET', `/database-users/${user.body.id}`),
      ]
      // Both active, and the login's latest job (its grants, applied once the database exists) finished.
      const job = login.body.jobId
        ? await again<{ status: string }>('GET', `/jobs/${login.body.jobId}`)
        : { body: { status: 'succeeded' } }
      if (db.body.status === 'active' && login.body.status === 'active' && job.body.status === 'succeeded')
        break
      if (Date.now() > deadline)
        throw new Error(`not ready: ${db.body.status}, ${login.body.status}, its job ${job.body.status}`)
      await Bun.sleep(100)
    }
    const held = await countOnServer(engine, database.body.name, user.body.username)
    expect(held.databases).toBe(1)
    const hosts = (user.body.allowedHosts as string[]).toSorted()
    expect(held.accounts).toEqual(engine === 'mariadb' ? hosts : ['*'])
    await logsIn(engine, user.body.username, user.body.password, database.body.name)

    // And the panel recorded each once: one database, one user, one of each creation event.
    const databases = await again<{ items: Database[] }>('GET', '/databases')
    expect(databases.body.items.map((item) => item.id)).toEqual([database.body.id])
    const users = await again<{ items: DatabaseUser[] }>('GET', '/database-users')
    expect(users.body.items.map((item) => item.id)).toEqual([user.body.id])
    await killHard(second)
  }, 90_000)
})
