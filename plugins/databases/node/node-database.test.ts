// The node's own MariaDB, as the databases plugin's node module runs it with a real MariaDB server: made on first
// start under the node's data directory, on loopback only, its administrator's password in a root-only file; the
// engine operations the panel asks run on it by the node; a later start of the node finds it running.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import {
  freePort,
  nodeWith,
  type PlinthNode,
  removeNodeLeftovers,
  waitFor,
} from '../../../hosts/testing/index.ts'
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

  test('its administration is closed to other users (a site’s): its socket’s folder, its password file, root’s login by Unix identity', () => {
    const service = join(dataDir, 'services', 'database')
    // `nobody` stands for a site's user: neither root nor the server's own `mysql`.
    const asNobody = (argv: string[]) =>
      Bun.spawnSync(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', ...argv], {
        stderr: 'pipe',
        stdout: 'pipe',
      })
    const socketLogin = asNobody([
      'mariadb',
      `--socket=${join(service, 'run', 'mariadb.sock')}`,
      '--user=root',
      '--batch',
      '-e',
      'SELECT 1',
    ])
    expect(socketLogin.exitCode).not.toBe(0)
    expect(socketLogin.stderr.toString()).toMatch(/Permission denied|\(13\)/)
    const password = asNobody(['cat', join(service, 'admin.json')])
    expect(password.exitCode).not.toBe(0)
    expect(password.stderr.toString()).toContain('Permission denied')
    // Over TCP root has no password to give: its only login is by its Unix identity, on the socket.
    const tcpRoot = asNobody([
      'mariadb',
      '--host=127.0.0.1',
      `--port=${port}`,
      '--user=root',
      '--batch',
      '-e',
      'SELECT 1',
    ])
    expect(tcpRoot.exitCode).not.toBe(0)
    expect(tcpRoot.stderr.toString()).toMatch(/Access denied/)
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
    // The sweep of backups' temporaries finds names by their start.
    expect(await ask('namesStartingWith', `db_${suffix}`)).toEqual({ databases: [database], users: [] })
    expect(await ask('namesStartingWith', `u_${suffix}`)).toEqual({ databases: [], users: [user] })
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

describe('the node’s own MariaDB, when things go wrong', () => {
  /** A node of its own, in a fresh folder, running the module with `port`, looked at every 200 ms. */
  async function freshNode(port: number, dir = mkdtempSync(join(tmpdir(), 'plinth-node-db-'))) {
    chmodSync(dir, 0o711)
    dirs.push(dir)
    const made = await nodeWith([{ module: databasesNodeModule, options: { port, watchEveryMs: 200 } }], {
      dataDir: dir,
      httpPort: freePort(),
      httpsPort: freePort(),
      filesOnly: true,
    })
    const lines: string[] = []
    const stopNode = await made.startServices((_level, _fields, message) => lines.push(message))
    stops.push(stopNode)
    const info = async () => (await made.capabilities()).services.database as unknown as NodeDatabaseInfo
    return { node: made, dir, lines, info, stop: stopNode }
  }
  const dirs: string[] = []
  const stops: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const stopNode of stops) await stopNode()
    for (const dir of dirs) removeNodeLeftovers(dir)
  })
  const pidOf = (dir: string) =>
    Number(readFileSync(join(dir, 'services', 'database', 'run', 'mariadb.pid'), 'utf8'))

  test('killed, it says so and is started again by itself', async () => {
    const port = freePort()
    const fresh = await freshNode(port)
    const before = pidOf(fresh.dir)
    process.kill(before, 'SIGKILL')
    await waitFor('the node to say it stopped', async () =>
      (await fresh.info()).running === false || pidOf(fresh.dir) !== before ? true : null,
    )
    await waitFor('it to run again', async () => ((await fresh.info()).running ? true : null), 30_000)
    expect(pidOf(fresh.dir)).not.toBe(before)
    expect((await fresh.info()).port).toBe(port)
    expect(fresh.lines.some((line) => line.includes('stopped; starting it again'))).toBe(true)
  }, 60_000)

  test('keeps the port it was made with when the setting changes (the sites’ configurations name it)', async () => {
    const first = freePort()
    const fresh = await freshNode(first)
    await fresh.stop()
    const again = await freshNode(freePort(), fresh.dir)
    expect((await again.info()).port).toBe(first)
    expect(again.lines.some((line) => line.includes(`keeps port ${first}`))).toBe(true)
  }, 60_000)

  test('a data directory made again gets its administrator again: the node’s operations work', async () => {
    const fresh = await freshNode(freePort())
    const socket = join(fresh.dir, 'services', 'database', 'run', 'mariadb.sock')
    // The administrator the file names no longer exists (a restored or remade data directory).
    Bun.spawnSync([
      'mariadb',
      `--socket=${socket}`,
      '--user=root',
      '-e',
      "DROP USER 'plinth_admin'@'127.0.0.1'",
    ])
    await fresh.stop()
    const again = await freshNode(freePort(), fresh.dir)
    const answer = await again.node.run(
      {
        operation: 'node-call',
        payload: { service: 'database', request: { op: 'engine', method: 'check', args: [] } },
      },
      AbortSignal.timeout(30_000),
    )
    expect(answer).toMatchObject({ version: expect.any(String) })
  }, 60_000)

  test('one that cannot start (its port taken) says why among what the node lacks, and is tried again', async () => {
    const taken = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    try {
      const fresh = await freshNode(taken.port)
      const info = await fresh.info()
      expect(info.running).toBe(false)
      expect(info.reason).toMatch(/\[ERROR\].*(port|Bind|Address already in use)/i)
      const missing = (await fresh.node.capabilities()).missing
      expect(missing).toEqual([
        expect.objectContaining({
          for: 'a database server of the node’s own',
          what: expect.stringContaining('[ERROR]'),
        }),
      ])
      taken.stop(true)
      await waitFor(
        'it to start once the port is free',
        async () => ((await fresh.info()).running ? true : null),
        30_000,
      )
      expect((await fresh.node.capabilities()).missing).toEqual([])
    } finally {
      taken.stop(true)
    }
  }, 60_000)

  test('an installation cut short is moved aside, never deleted, and made again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plinth-node-db-'))
    const data = join(dir, 'services', 'database', 'data')
    mkdirSync(join(data, 'mysql'), { recursive: true })
    writeFileSync(join(data, 'mysql', 'half-made'), 'x')
    const fresh = await freshNode(freePort(), dir)
    expect((await fresh.info()).running).toBe(true)
    const aside = readdirSync(join(dir, 'services', 'database')).filter((name) =>
      name.startsWith('data.incomplete-'),
    )
    expect(aside).toHaveLength(1)
    expect(existsSync(join(dir, 'services', 'database', aside[0] ?? '', 'mysql', 'half-made'))).toBe(true)
  }, 60_000)
})
