// DELETE /api/v1/database-servers/{id} as platform staff see it: a server that holds nothing is forgotten (204, then
// 404, audited); one holding databases or database users (in any state) is refused with 409 database_server_in_use
// naming them and keeps everything; a node's own server goes only with its node. The jobs do not run here, so
// what is created stays `provisioning` on the panel and nothing is made on the machine's MariaDB.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  expectProblem,
  nodeWithPlayedAgent,
  type Page,
  playAgent,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import type { DatabaseServer } from './contract.ts'
import { mariadbAdmin } from './test-servers.ts'

let tp: TestPanel
let staff: string
let customerId: string
const run = crypto.randomUUID().slice(0, 6)

const remove = (id: string, token = staff) =>
  tp.request('DELETE', `/api/v1/database-servers/${id}`, { token })
const post = (path: string, body: unknown) => tp.request('POST', `/api/v1${path}`, { token: staff, body })

async function status(path: string): Promise<number> {
  return (await tp.request('GET', path, { token: staff })).status
}

/** A staff server on the machine's MariaDB (the panel logs in to check it before keeping it). */
async function newServer(name: string): Promise<DatabaseServer> {
  const response = await post('/database-servers', {
    name: `${name}-${run}`,
    engine: 'mariadb',
    host: mariadbAdmin.host,
    port: mariadbAdmin.port,
    username: mariadbAdmin.username,
    password: mariadbAdmin.password,
  })
  expect(response.status).toBe(201)
  return (await response.json()) as DatabaseServer
}

beforeAll(async () => {
  tp = await createTestPanel()
  staff = await tp.token()
  customerId = ((await (await post('/customers', { name: 'Acme' })).json()) as { id: string }).id
})
afterAll(() => tp.panel.close())

describe('deleting a database server', () => {
  test('a server that holds nothing is forgotten: 204, then 404, audited as database_server.delete', async () => {
    const server = await newServer('spare')
    const response = await remove(server.id)
    expect(response.status).toBe(204)
    expect(await status(`/api/v1/database-servers/${server.id}`)).toBe(404)
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${server.id}`, { token: staff })
    ).json()) as Page<{ action: string; details: Record<string, unknown> }>
    expect(audit.items.map((entry) => entry.action)).toEqual([
      'database_server.delete',
      'database_server.create',
    ])
    expect(audit.items[0]?.details).toEqual({
      name: server.name,
      engine: 'mariadb',
      host: mariadbAdmin.host,
      port: mariadbAdmin.port,
    })
    await expectProblem(await remove(server.id), 404, 'not_found')
  })

  test('a server holding a database, then a database user, is refused with 409 database_server_in_use naming them', async () => {
    const server = await newServer('busy')
    // The only active MariaDB server: the database goes there.
    const others = (await (
      await tp.request('GET', '/api/v1/database-servers?engine=mariadb&status=active', { token: staff })
    ).json()) as Page<DatabaseServer>
    expect(others.items.map((item) => item.id)).toEqual([server.id])
    const database = await post('/databases', { customerId, engine: 'mariadb', name: 'shop' })
    expect(database.status).toBe(201)
    let body = await expectProblem(await remove(server.id), 409, 'database_server_in_use')
    expect(body.blockers).toEqual([{ name: 'databases', count: 1 }])
    expect(body.detail).toContain('databases (1)')
    const user = await post('/database-users', { customerId, serverId: server.id, name: 'app' })
    expect(user.status).toBe(201)
    body = await expectProblem(await remove(server.id), 409, 'database_server_in_use')
    expect(body.blockers).toEqual([
      { name: 'databases', count: 1 },
      { name: 'database-users', count: 1 },
    ])
    expect(await status(`/api/v1/database-servers/${server.id}`)).toBe(200)
    expect(await status(`/api/v1/databases/${((await database.json()) as { id: string }).id}`)).toBe(200)
  })

  test('a node’s own server is refused with 409 database_server_of_node: it goes with its node', async () => {
    const { node } = await nodeWithPlayedAgent(tp, staff, `db-node-${run}`)
    await playAgent(tp, node.agentToken).poll({
      nginx: null,
      php: null,
      unixUsers: false,
      mode: 'files-only',
      applications: {},
      services: {
        database: { engine: 'mariadb', running: true, version: '10.11.6', host: '127.0.0.1', port: 3307 },
      },
      missing: [],
      setup: 'npm run agent -- setup',
    })
    const servers = (await (
      await tp.request('GET', '/api/v1/database-servers?limit=100', { token: staff })
    ).json()) as Page<DatabaseServer>
    const own = servers.items.find((server) => server.nodeId === node.id)
    expect(own).toBeDefined()
    await expectProblem(await remove(own?.id ?? ''), 409, 'database_server_of_node')
    expect(await status(`/api/v1/database-servers/${own?.id}`)).toBe(200)
  })

  test('without database-server:manage the deletion is 403; an unknown server is 404', async () => {
    const server = await newServer('kept')
    const reader = await tp.token({ scopes: ['database-server:read'] })
    await expectProblem(await remove(server.id, reader), 403, 'insufficient_scope')
    await expectProblem(await remove('dbs_01J0000000000000000000000Z'), 404, 'not_found')
    expect(await status(`/api/v1/database-servers/${server.id}`)).toBe(200)
  })
})
