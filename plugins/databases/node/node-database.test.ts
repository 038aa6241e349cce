// The node's own MariaDB, as the databases plugin's node module runs it with a real MariaDB server: made on first
// start under the node's data directory, on loopback only, its administrator's password in a root-only file; the
// engine operations the panel asks run on it by the node; a later start of the node finds it running.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, statSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort, nodeWith, type PlinthNode, removeNodeLeftovers } from '../../../hosts/testing/index.ts'
import databasesNodeModule from './index.ts'
import type { NodeDatabaseInfo } from './protocol.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-node-db-'))
// The node's data directory lets others pass (the runtime opens a fresh one so when it first serves).
chmodSync(dataDir, 0o711)
const port = freePort()
let node: PlinthNode
let stop: () => Promise<void>
const log: string[] = []

const ask = (method: string, ...args: unknown[]) =>
  node.run(
    { operation: 'node-call', payload: { service: 'database', request: { op: 'engine', method, args } } },
    AbortSignal.timeout(30_000),
  )

beforeAll(async () => {
  node = await nodeWith([{ module: databasesNodeModule, options: { port } }], {
    dataDir,
    httpPort: freePort(),
    httpsPort: freePort(),
    filesOnly: true,
  })
  stop = await node.startServices((_level, _fields, message) => log.push(message))
}, 120_000)

afterAll(async () => {
  await stop?.()
  removeNodeLeftovers(dataDir)
})

describe('the node’s own MariaDB', () => {
  test('runs on loopback at its port, and the node says so with its capabilities', async () => {
    const info = (await node.capabilities()).services.database as unknown as NodeDatabaseInfo
    expect(info).toMatchObject({ engine: 'mariadb', running: true, host: '127.0.0.1', port })
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(log.some((line) => line.includes(`127.0.0.1:${port}`))).toBe(true)
    // No other address of the machine reaches it.
    const other = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)
    if (other)
      await expect(
        mysql.createConnection({ host: other.address, port, user: 'nobody', connectTimeout: 2_000 }),
      ).rejects.toThrow(/ECONNREFUSED|ETIMEDOUT|connect/)
  })

  test('keeps its administrator’s password in a root-only file; root logs in by its Unix identity only', () => {
    const admin = join(dataDir, 'services', 'database', 'admin.json')
    expect((statSync(admin).mode & 0o777).toString(8)).toBe('600')
    expect(statSync(admin).uid).toBe(0)
  })

  test('runs the engine operations the panel asks: a database and a login that reaches it from the node', async () => {
    const suffix = crypto.randomUUID().slice(0, 8).replaceAll('-', '')
    const database = `db_${suffix}`
    const user = `u_${suffix}`
    expect(await ask('check')).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+/) })
    await ask('createDatabase', database)
    await ask('createUser', user, 'Node-Db-Password-2026', ['127.0.0.1', 'localhost'])
    await ask('setGrants', user, [{ database, access: 'readwrite' }], ['127.0.0.1', 'localhost'])
    const site = await mysql.createConnection({
      host: '127.0.0.1',
      port,
      user,
      password: 'Node-Db-Password-2026',
      database,
    })
    await site.query('CREATE TABLE notes (id INT PRIMARY KEY, body TEXT)')
    await site.query("INSERT INTO notes VALUES (1, 'hello')")
    await site.end()
    expect(await ask('readGrants', user, ['127.0.0.1', 'localhost'])).toEqual([
      { database, access: 'readwrite' },
    ])
    const sizes = new Map(await (ask('databaseSizes', [database]) as Promise<[string, number][]>))
    expect(sizes.get(database)).toBeGreaterThan(0)
    await ask('dropUser', user, ['127.0.0.1', 'localhost'])
    await ask('dropDatabase', database)
    expect(await ask('databaseSizes', [database])).toEqual([])
  })

  test('refuses what it does not run, with a code the panel maps', async () => {
    await expect(ask('close')).rejects.toMatchObject({ code: 'invalid_database_request' })
    await expect(ask('createDatabase', 'Robert"); DROP')).rejects.toThrow()
  })

  test('a later start of the node finds it running: the same server, not a second one', async () => {
    const pid = Number(await Bun.file(join(dataDir, 'services', 'database', 'run', 'mariadb.pid')).text())
    const again = await nodeWith([{ module: databasesNodeModule, options: { port } }], {
      dataDir,
      httpPort: freePort(),
      httpsPort: freePort(),
      filesOnly: true,
    })
    const stopAgain = await again.startServices(() => {})
    expect(Number(await Bun.file(join(dataDir, 'services', 'database', 'run', 'mariadb.pid')).text())).toBe(
      pid,
    )
    expect(((await again.capabilities()).services.database as unknown as NodeDatabaseInfo).running).toBe(true)
    await stopAgain()
  })

  test('a node without a port for it runs none and offers no database service', async () => {
    const none = await nodeWith([{ module: databasesNodeModule, options: { port: null } }], {
      dataDir: mkdtempSync(join(tmpdir(), 'plinth-node-nodb-')),
      httpPort: freePort(),
      httpsPort: freePort(),
      filesOnly: true,
    })
    expect((await none.capabilities()).services).toEqual({})
  })
})
