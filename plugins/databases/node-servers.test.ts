// A node's own database server, from the panel's side, with the test playing the node's agent: registered when the
// node reports it, brought up to date when its address changes, its connection details refused to staff, its
// databases made through the node (a `node-call` command of the agent's queue, never a connection of the panel's),
// and used for its own node's sites only.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  expectFieldProblem,
  nodeWithPlayedAgent,
  type playAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'

let tp: TestPanel
let staff: string
let node: { id: string; name: string; agentToken: string }
let customerId: string

const databaseOn = (port: number) => ({
  nginx: null,
  php: null,
  unixUsers: false,
  mode: 'files-only',
  applications: {},
  services: {
    database: { engine: 'mariadb', running: true, version: '10.11.6', host: '127.0.0.1', port },
  },
  missing: [],
  setup: 'npm run agent -- setup',
})
let agent: ReturnType<typeof playAgent>
/** The agent's poll, saying the node's own server listens on `port`; answers the commands handed out. */
const report = (port: number) => agent.poll(databaseOn(port))
const serversOfNode = async () =>
  (
    (await (await tp.request('GET', '/api/v1/database-servers', { token: staff })).json()) as {
      items: {
        id: string
        name: string
        nodeId: string | null
        host: string
        port: number
        version: string
      }[]
    }
  ).items.filter((server) => server.nodeId === node.id)

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
  tp.panel.start()
  staff = await tp.token()
  // New sites go to the agent's node: the local one takes none.
  const played = await nodeWithPlayedAgent(tp, staff, 'fra-9')
  node = played.node
  agent = played.agent
  customerId = (
    (await (
      await tp.request('POST', '/api/v1/customers', { token: staff, body: { name: 'Acme' } })
    ).json()) as { id: string }
  ).id
})
afterAll(() => tp.panel.close(), 30_000)

describe('a node’s own database server', () => {
  test('is registered when the node reports it, as the node’s, once', async () => {
    await report(3307)
    await report(3307)
    expect(await serversOfNode()).toEqual([
      expect.objectContaining({
        name: 'fra-9-mariadb',
        nodeId: node.id,
        host: '127.0.0.1',
        port: 3307,
        version: '10.11.6',
      }),
    ])
    const audit = (await (
      await tp.request('GET', '/api/v1/audit?action=database_server.register', { token: staff })
    ).json()) as { items: { details: Record<string, unknown> }[] }
    expect(audit.items).toHaveLength(1)
    expect(audit.items[0]?.details).toMatchObject({ nodeId: node.id, port: 3307 })
  })

  test('follows the address the node reports, keeping what staff chose', async () => {
    const [server] = await serversOfNode()
    const renamed = await tp.request('PATCH', `/api/v1/database-servers/${server?.id}`, {
      token: staff,
      body: { name: 'fra-9-db', capacity: 500 },
    })
    expect(renamed.status).toBe(200)
    await report(3317)
    expect(await serversOfNode()).toEqual([
      expect.objectContaining({ id: server?.id, name: 'fra-9-db', port: 3317 }),
    ])
  })

  test('refuses staff a change of its host, port or administrator: they are the node’s', async () => {
    const [server] = await serversOfNode()
    for (const [field, value] of [
      ['port', 3306],
      ['host', 'db.example.net'],
      ['password', 'secret'],
    ] as const) {
      const response = await tp.request('PATCH', `/api/v1/database-servers/${server?.id}`, {
        token: staff,
        body: { [field]: value },
      })
      await expectFieldProblem(response, 422, 'node_database_server', `body.${field}`)
    }
    expect((await serversOfNode())[0]?.port).toBe(3317)
  })

  test('makes a database of a site on its node through the node: a command the agent carries out', async () => {
    const site = (await (
      await tp.request('POST', '/api/v1/sites', {
        token: staff,
        body: { customerId, name: 'Shop', type: 'wordpress', domain: 'shop.example.test' },
      })
    ).json()) as { id: string; nodeId: string }
    expect(site.nodeId).toBe(node.id)
    const created = await tp.request('POST', '/api/v1/databases', {
      token: staff,
      body: { customerId, engine: 'mariadb', name: 'shop', siteId: site.id },
    })
    expect(created.status).toBe(201)
    const database = (await created.json()) as { id: string; serverId: string; host: string; port: number }
    const [server] = await serversOfNode()
    expect(database).toMatchObject({ serverId: server?.id, host: '127.0.0.1', port: 3317 })
    // The agent is asked to make it on its own server.
    const command = await waitFor(
      'the node-call command',
      async () =>
        (await report(3317)).find(
          (each) =>
            each.operation === 'node-call' &&
            (each.payload as { request: { method: string } }).request.method === 'createDatabase',
        ) ?? null,
    )
    expect(command.payload).toMatchObject({
      service: 'database',
      request: { op: 'engine', method: 'createDatabase', args: [expect.stringMatching(/_shop$/)] },
    })
    await agent.answer(command, null, null)
    await waitFor('the database to be active', async () => {
      const now = (await (
        await tp.request('GET', `/api/v1/databases/${database.id}`, { token: staff })
      ).json()) as { status: string }
      return now.status === 'active' ? true : null
    })
  })

  test('takes no database of no site (nothing but its node’s sites could reach it), saying how to place one', async () => {
    const refused = await tp.request('POST', '/api/v1/databases', {
      token: staff,
      body: { customerId, engine: 'mariadb', name: 'reports' },
    })
    expect(refused.status).toBe(409)
    const body = (await refused.json()) as { code: string; detail: string }
    expect(body.code).toBe('no_database_server')
    expect(body.detail).toContain('give `siteId`')
  })

  test('takes no database of a site on another node, which could not reach it', async () => {
    const local = (
      (await (await tp.request('GET', '/api/v1/nodes', { token: staff })).json()) as {
        items: { id: string; driver: string }[]
      }
    ).items.find((each) => each.driver === 'local')
    await tp.request('PATCH', `/api/v1/nodes/${local?.id}`, { token: staff, body: { status: 'active' } })
    await tp.request('PATCH', `/api/v1/nodes/${node.id}`, { token: staff, body: { status: 'draining' } })
    const site = (await (
      await tp.request('POST', '/api/v1/sites', {
        token: staff,
        body: { customerId, name: 'Blog', type: 'wordpress', domain: 'blog.example.test' },
      })
    ).json()) as { id: string; nodeId: string }
    expect(site.nodeId).toBe(local?.id ?? '')
    const refused = await tp.request('POST', '/api/v1/databases', {
      token: staff,
      body: { customerId, engine: 'mariadb', name: 'blog', siteId: site.id },
    })
    expect(refused.status).toBe(409)
    expect(((await refused.json()) as { code: string }).code).toBe('no_database_server')
  })
})
