// DELETE /api/v1/nodes/{id} as platform staff see it: a node nothing lives on goes (204, then 404, audited, its agent
// refused), with its own database server when that holds nothing; one holding sites, or databases on its server,
// is refused with 409 node_in_use naming them and keeps everything; the node the panel runs is never deleted.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  expectProblem,
  nodeWithPlayedAgent,
  type Page,
  playAgent,
  type TestPanel,
} from '../../hosts/testing/index.ts'

let tp: TestPanel
let staff: string
let customerId: string

const remove = (id: string, token = staff) => tp.request('DELETE', `/api/v1/nodes/${id}`, { token })

async function status(path: string): Promise<number> {
  return (await tp.request('GET', path, { token: staff })).status
}

/** What a node says it runs when it has a MariaDB of its own on `port`. */
const withDatabase = (port: number) => ({
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

async function serverOf(nodeId: string): Promise<{ id: string; name: string } | undefined> {
  const page = (await (
    await tp.request('GET', '/api/v1/database-servers?limit=100', { token: staff })
  ).json()) as Page<{ id: string; name: string; nodeId: string | null }>
  return page.items.find((server) => server.nodeId === nodeId)
}

async function auditOf(subject: string): Promise<{ action: string; details: Record<string, unknown> }[]> {
  const page = (await (
    await tp.request('GET', `/api/v1/audit?subject=${subject}`, { token: staff })
  ).json()) as Page<{ action: string; details: Record<string, unknown> }>
  return [...page.items]
}

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
  staff = await tp.token()
  customerId = (
    (await (
      await tp.request('POST', '/api/v1/customers', { token: staff, body: { name: 'Acme' } })
    ).json()) as { id: string }
  ).id
})
afterAll(() => tp.panel.close(), 30_000)

describe('deleting a node', () => {
  test('a node nothing lives on is deleted: 204, then 404, audited as node.delete, its agent refused', async () => {
    const { node, agent } = await nodeWithPlayedAgent(tp, staff, 'spare-1')
    await agent.poll()
    const response = await remove(node.id)
    expect(response.status).toBe(204)
    expect(await status(`/api/v1/nodes/${node.id}`)).toBe(404)
    expect((await auditOf(node.id)).map((entry) => entry.action)).toEqual(['node.delete', 'node.create'])
    expect((await auditOf(node.id))[0]?.details).toEqual({
      name: 'spare-1',
      driver: 'agent',
      hostname: '127.0.0.1',
    })
    const refused = await tp.request('POST', '/api/v1/agent/work', {
      body: { session: 'played-agent', version: 'test', capabilities: {}, holding: [], waitSeconds: 0 },
      headers: { authorization: `Bearer ${node.agentToken}` },
    })
    await expectProblem(refused, 401, 'invalid_agent_token')
    await expectProblem(await remove(node.id), 404, 'not_found')
  })

  test('its own database server, holding nothing, goes with it, audited as that server’s deletion', async () => {
    const { node } = await nodeWithPlayedAgent(tp, staff, 'spare-2')
    await playAgent(tp, node.agentToken).poll(withDatabase(3307))
    const server = await serverOf(node.id)
    expect(server?.name).toBe('spare-2-mariadb')
    expect((await remove(node.id)).status).toBe(204)
    expect(await status(`/api/v1/database-servers/${server?.id}`)).toBe(404)
    const entries = await auditOf(server?.id ?? '')
    expect(entries[0]).toMatchObject({
      action: 'database_server.delete',
      details: { name: 'spare-2-mariadb', reason: 'its node spare-2 was deleted' },
    })
  })

  test('a node holding a site, and a database on its server, is refused with 409 node_in_use naming them', async () => {
    const { node } = await nodeWithPlayedAgent(tp, staff, 'busy-1')
    const agent = playAgent(tp, node.agentToken)
    await agent.poll(withDatabase(3307))
    const site = (await (
      await tp.request('POST', '/api/v1/sites', {
        token: staff,
        body: { customerId, name: 'Shop', type: 'wordpress', domain: 'shop.busy.example' },
      })
    ).json()) as { id: string; nodeId: string }
    expect(site.nodeId).toBe(node.id)
    let body = await expectProblem(await remove(node.id), 409, 'node_in_use')
    expect(body.blockers).toEqual([{ name: 'sites', count: 1 }])
    expect(body.detail).toContain('sites (1)')
    const database = await tp.request('POST', '/api/v1/databases', {
      token: staff,
      body: { customerId, engine: 'mariadb', name: 'shop', siteId: site.id },
    })
    expect(database.status).toBe(201)
    body = await expectProblem(await remove(node.id), 409, 'node_in_use')
    expect(body.blockers).toEqual([
      { name: 'sites', count: 1 },
      { name: 'databases', count: 1 },
    ])
    // Nothing changed: the node, its server, the site and the database are all there.
    expect(await status(`/api/v1/nodes/${node.id}`)).toBe(200)
    expect(await serverOf(node.id)).toBeDefined()
    expect(await status(`/api/v1/sites/${site.id}`)).toBe(200)
    expect(await status(`/api/v1/databases/${((await database.json()) as { id: string }).id}`)).toBe(200)
    expect((await auditOf(node.id)).map((entry) => entry.action)).not.toContain('node.delete')
  })

  test('the node the panel runs itself is refused with 409 local_node', async () => {
    const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token: staff })).json()) as Page<{
      id: string
      driver: string
    }>
    const local = nodes.items.find((node) => node.driver === 'local')
    await expectProblem(await remove(local?.id ?? ''), 409, 'local_node')
    expect(await status(`/api/v1/nodes/${local?.id}`)).toBe(200)
  })

  test('without node:manage the deletion is 403; an unknown node is 404', async () => {
    const { node } = await nodeWithPlayedAgent(tp, staff, 'kept-1')
    const reader = await tp.token({ scopes: ['node:read'] })
    await expectProblem(await remove(node.id, reader), 403, 'insufficient_scope')
    await expectProblem(await remove('nod_01J0000000000000000000000Z'), 404, 'not_found')
    expect(await status(`/api/v1/nodes/${node.id}`)).toBe(200)
  })
})
