// A WordPress site no node can serve is refused at once, naming what the nodes lack and the command that installs
// it, rather than left to a provisioning job that fails again and again; once a node reports what it needs, the
// same request creates the site there. The test plays the node's agent, reporting what its node runs.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  nodeWithPlayedAgent,
  type playAgent,
  type TestPanel,
} from '../../hosts/testing/index.ts'

let tp: TestPanel
let staff: string
let node: { id: string; agentToken: string }
let customerId: string

const capabilities = (overrides: Record<string, unknown>) => ({
  nginx: '1.22.1',
  php: '8.2.26',
  unixUsers: true,
  mode: 'serving',
  applications: {},
  services: {},
  missing: [],
  setup: 'npm run agent -- setup',
  ...overrides,
})
let agent: ReturnType<typeof playAgent>
const report = (reported: Record<string, unknown>) => agent.poll(reported)
const createSite = (domain: string, token = staff) =>
  tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name: 'Blog', type: 'wordpress', domain },
  })
const siteCount = async () =>
  ((await (await tp.request('GET', '/api/v1/sites', { token: staff })).json()) as { items: unknown[] }).items
    .length

beforeAll(async () => {
  tp = await createTestPanel()
  staff = await tp.token()
  // Only the agent's node takes new sites.
  const played = await nodeWithPlayedAgent(tp, staff, 'fra-3')
  node = played.node
  agent = played.agent
  customerId = (
    (await (
      await tp.request('POST', '/api/v1/customers', { token: staff, body: { name: 'Acme' } })
    ).json()) as { id: string }
  ).id
})
afterAll(() => tp.panel.close())

describe('a WordPress site no node can serve', () => {
  test('is refused, naming what the node lacks and the command that installs it; nothing is kept', async () => {
    await report(
      capabilities({
        missing: [
          { what: 'Debian’s wordpress package', for: 'wordpress sites' },
          { what: 'mariadb-server', for: 'a database server of the node’s own' },
        ],
      }),
    )
    const refused = await createSite('blog.example.test')
    const body = JSON.stringify(await refused.clone().json())
    await expectFieldProblem(refused, 422, 'site_type_unavailable', 'body.type')
    expect(body).toContain('fra-3 lacks Debian’s wordpress package')
    expect(body).toContain('a MariaDB server')
    expect(body).toContain('npm run agent -- setup')
    expect(await siteCount()).toBe(0)
    // A customer's caller learns that no server offers WordPress now, not the provider's nodes or commands.
    const customers = await createSite('blog.example.test', await tp.token({ customerId }))
    const told = JSON.stringify(await customers.clone().json())
    for (const secret of ['fra-3', 'npm run', 'mariadb', 'wordpress package'])
      expect(told.toLowerCase()).not.toContain(secret)
    await expectFieldProblem(customers, 422, 'site_type_unavailable', 'body.type')
  })

  test('is refused on a node that would serve but lacks nginx, though it lays out files only: it is not ready', async () => {
    await report(
      capabilities({ nginx: null, mode: 'files-only', missing: [{ what: 'nginx', for: 'serving sites' }] }),
    )
    const refused = await createSite('blog.example.test')
    const body = (await refused.clone().json()) as {
      detail: string
      nodes: { notReady: { code: string }[] }[]
    }
    expect(body.detail).toContain('fra-3: nginx is not installed')
    expect(body.nodes[0]?.notReady.map((reason) => reason.code)).toEqual(['binary_missing'])
    await expectProblem(refused, 409, 'no_node_ready')
    expect(await siteCount()).toBe(0)
  })

  test('is created once the node runs WordPress and a database server of its own', async () => {
    await report(
      capabilities({
        applications: { wordpress: '6.1.9' },
        services: {
          database: { engine: 'mariadb', running: true, host: '127.0.0.1', port: 3307, version: '10.11.6' },
        },
      }),
    )
    const created = await createSite('blog.example.test')
    expect(created.status).toBe(201)
    expect(((await created.json()) as { nodeId: string }).nodeId).toBe(node.id)
  })

  test('is refused, saying so, while the node’s own server runs but staff disabled it', async () => {
    const servers = (await (
      await tp.request('GET', '/api/v1/database-servers', { token: staff })
    ).json()) as {
      items: { id: string; nodeId: string | null }[]
    }
    const own = servers.items.find((server) => server.nodeId === node.id)
    expect(own).toBeDefined()
    const path = `/api/v1/database-servers/${own?.id}`
    const disabled = await tp.request('PATCH', path, { token: staff, body: { status: 'disabled' } })
    expect(disabled.status).toBe(200)
    const refused = await createSite('shop.example.test')
    const body = JSON.stringify(await refused.clone().json())
    await expectFieldProblem(refused, 422, 'site_type_unavailable', 'body.type')
    // Not "install mariadb-server": it is installed and running.
    expect(body).toContain('the node’s own MariaDB server is disabled or full')
    expect(body).not.toContain('mariadb-server on the node')
    await tp.request('PATCH', path, { token: staff, body: { status: 'active' } })
  })

  test('is refused while the node’s own server, registered, does not run (its port taken), and created once it runs', async () => {
    const down = 'Can’t start server: Bind on TCP/IP port. Got error: 98: Address already in use'
    await report(
      capabilities({
        applications: { wordpress: '6.1.9' },
        services: { database: { engine: 'mariadb', running: false, reason: down } },
        missing: [{ what: `a running MariaDB (${down})`, for: 'a database server of the node’s own' }],
      }),
    )
    // Not placed to fail its job with database_not_ready again and again: refused at once, saying why.
    const refused = await createSite('down.example.test')
    const body = JSON.stringify(await refused.clone().json())
    await expectFieldProblem(refused, 422, 'site_type_unavailable', 'body.type')
    expect(body).toContain('a running MariaDB (Can’t start server: Bind on TCP/IP port')
    await report(
      capabilities({
        applications: { wordpress: '6.1.9' },
        services: {
          database: { engine: 'mariadb', running: true, host: '127.0.0.1', port: 3307, version: '10.11.6' },
        },
      }),
    )
    expect((await createSite('down.example.test')).status).toBe(201)
  })
})
