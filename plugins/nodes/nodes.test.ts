// The nodes area as clients see it: platform staff list, read, add and change nodes; nobody else gets in.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin, type Tenancy } from '../../core/index.ts'
import {
  brandA,
  createTestPanel,
  createTestUser,
  customerA,
  expectFieldProblem,
  expectProblem,
  fixturePlugin,
  type Page,
  type TestPanel,
  temporaryDataDir,
  twoTenants,
} from '../../hosts/testing/index.ts'
import { type Node, type NodeDirectory, nodeCommand, nodeDirectory } from './contract.ts'
import { nodesPlugin } from './index.ts'

type NodeWithToken = Node & { agentToken: string }

const dataDir = temporaryDataDir()
let tp: TestPanel
let staffToken: string
let directory: NodeDirectory
let tenancy: Tenancy

/** A plugin that keeps the node directory for the tests (the `agent` driver is the nodes plugin's own). */
const agentDriverPlugin = definePlugin({
  name: 'agent-driver',
  version: '1.0.0',
  description: 'Keeps the node directory and tenancy for the tests.',
  requires: ['nodes'],
  setup(context) {
    directory = context.use(nodeDirectory)
    tenancy = context.tenancy
  },
})

async function createNode(body: Record<string, unknown>): Promise<NodeWithToken> {
  const response = await tp.request('POST', '/api/v1/nodes', { token: staffToken, body })
  expect(response.status).toBe(201)
  return (await response.json()) as NodeWithToken
}

async function listNodes(query = ''): Promise<Page<Node>> {
  const response = await tp.request('GET', `/api/v1/nodes${query}`, { token: staffToken })
  expect(response.status).toBe(200)
  return (await response.json()) as Page<Node>
}

let counter = 0
const uniqueName = (base = 'web') => `${base}-${++counter}`

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      fixturePlugin({ description: 'Two brands with a customer each.', tenants: twoTenants }),
      nodesPlugin({ dataDir }),
      agentDriverPlugin,
    ],
  })
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

describe('a fresh installation', () => {
  test('has one active node named local, on the local driver, so sites can be placed at once', async () => {
    const { items } = await listNodes()
    expect(items).toEqual([
      {
        id: expect.stringMatching(/^nod_[0-9A-Z]{26}$/),
        name: 'local',
        driver: 'local',
        hostname: 'localhost',
        status: 'active',
        // Lays out files in the panel's process: ready with nothing running.
        ready: true,
        notReady: [],
        // Run in the panel's process: always connected.
        agent: expect.objectContaining({ connected: true }),
        // Reconciled once the panel starts its local node (not in this test panel).
        siteDefaults: { cpuPercent: 100, memoryMB: 1024, processes: 128 },
        inventory: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: items[0]?.createdAt ?? '',
      },
    ])
    expect((await directory.activeNodes()).map((node) => node.name)).toEqual(['local'])
  })

  test('reports the installed drivers in capabilities', async () => {
    const response = await tp.request('GET', '/api/v1/capabilities', { token: staffToken })
    const body = (await response.json()) as {
      installation: { plugins: { name: string; capabilities?: unknown }[] }
    }
    expect(body.installation.plugins.find((plugin) => plugin.name === 'nodes')?.capabilities).toEqual({
      drivers: [
        { name: 'local', description: expect.any(String) },
        {
          name: 'agent',
          description:
            'A remote node running the Plinth node agent (`npm run agent`), which dials the panel for its commands.',
        },
      ],
    })
  })

  test('without the local driver there is no local node, and `local` is an unknown driver', async () => {
    const bare = await createTestPanel({ standard: false, plugins: [nodesPlugin({ dataDir, local: false })] })
    try {
      const token = await bare.token()
      const list = await bare.request('GET', '/api/v1/nodes', { token })
      expect(((await list.json()) as Page<Node>).items).toEqual([])
      const create = await bare.request('POST', '/api/v1/nodes', {
        token,
        body: { name: 'web-1', driver: 'local', hostname: 'localhost' },
      })
      await expectFieldProblem(create, 422, 'unknown_driver', 'body.driver')
    } finally {
      await bare.panel.close()
    }
  })
})

describe('adding a node', () => {
  test('answers 201 with the node, Location, and an agent token shown once', async () => {
    const response = await tp.request('POST', '/api/v1/nodes', {
      token: staffToken,
      body: { name: 'Web-East', driver: 'agent', hostname: ' Web-East.Example.NET. ' },
    })
    expect(response.status).toBe(201)
    const node = (await response.json()) as NodeWithToken
    expect(node).toEqual({
      id: expect.stringMatching(/^nod_[0-9A-Z]{26}$/),
      name: 'Web-East',
      driver: 'agent',
      hostname: 'web-east.example.net',
      status: 'active',
      // No agent has dialled in yet: it receives no site.
      ready: false,
      notReady: [{ code: 'agent_never_connected', message: expect.stringContaining('npm run agent') }],
      agent: { connected: false, lastSeenAt: null, version: null, capabilities: null },
      // Never reconciled: its agent never connected.
      siteDefaults: { cpuPercent: 100, memoryMB: 1024, processes: 128 },
      inventory: null,
      createdAt: expect.any(String),
      updatedAt: node.createdAt,
      agentToken: expect.stringMatching(/^plinth_node_[0-9A-Za-z]{46}$/),
    })
    expect(response.headers.get('location')).toBe(`/api/v1/nodes/${node.id}`)
    expect(response.headers.get('cache-control')).toBe('no-store')
    // Shown once: neither the read nor the list carries it.
    const { agentToken: _shown, ...stored } = node
    const read = await tp.request('GET', `/api/v1/nodes/${node.id}`, { token: staffToken })
    expect(await read.json()).toEqual(stored)
    expect((await listNodes('?limit=100')).items).toContainEqual(stored)
    const text = JSON.stringify(await listNodes('?limit=100'))
    expect(text).not.toContain('plinth_node_')
  })

  test('stores only a hash of the agent token', async () => {
    const node = await createNode({ name: uniqueName(), driver: 'agent', hostname: '10.0.0.7' })
    const rows = await tp.panel.store.db
      .withTables<{ nodes: { id: string; agent_token_hash: string | null } }>()
      .selectFrom('nodes')
      .selectAll()
      .where('id', '=', node.id)
      .execute()
    expect(JSON.stringify(rows)).not.toContain(node.agentToken)
    expect(rows[0]?.agent_token_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  test('accepts IPv4 and IPv6 addresses as host names, brackets removed', async () => {
    for (const [hostname, stored] of [
      ['192.0.2.10', '192.0.2.10'],
      ['[2001:DB8::1]', '2001:db8::1'],
      ['localhost', 'localhost'],
    ] as const) {
      const node = await createNode({ name: uniqueName(), driver: 'agent', hostname })
      expect(node.hostname).toBe(stored)
    }
  })

  test('may start draining or disabled; only active nodes receive sites, oldest first', async () => {
    const draining = await createNode({
      name: uniqueName(),
      driver: 'agent',
      hostname: 'a.example',
      status: 'draining',
    })
    expect(draining.status).toBe('draining')
    const active = (await directory.activeNodes()).map((node) => node.id)
    expect(active).not.toContain(draining.id)
    expect(active).toEqual(active.toSorted())
    expect((await directory.activeNodes())[0]?.name).toBe('local')
  })

  test('an unknown driver is 422 unknown_driver at body.driver, naming the installed ones', async () => {
    const response = await tp.request('POST', '/api/v1/nodes', {
      token: staffToken,
      body: { name: uniqueName(), driver: 'ssh', hostname: 'a.example' },
    })
    const body = (await response.clone().json()) as { errors: { message: string }[] }
    await expectFieldProblem(response, 422, 'unknown_driver', 'body.driver')
    expect(body.errors[0]?.message).toBe('must be one of: local, agent')
  })

  test('a host name with a scheme, port, path or bad label is 422 invalid_hostname at body.hostname', async () => {
    for (const hostname of [
      'https://a.example',
      'a.example:22',
      'a.example/x',
      '-a.example',
      '999.1.1.1',
      'a b',
      '..',
    ]) {
      const response = await tp.request('POST', '/api/v1/nodes', {
        token: staffToken,
        body: { name: uniqueName(), driver: 'agent', hostname },
      })
      await expectFieldProblem(response, 422, 'invalid_hostname', 'body.hostname')
    }
  })

  test('several faulty fields are reported together', async () => {
    const response = await tp.request('POST', '/api/v1/nodes', {
      token: staffToken,
      body: { name: uniqueName(), driver: 'ssh', hostname: 'a.example:22' },
    })
    const body = await expectProblem(response, 422, 'validation_failed')
    expect(body.errors?.map((item) => [item.location, item.code])).toEqual([
      ['body.driver', 'unknown_driver'],
      ['body.hostname', 'invalid_hostname'],
    ])
  })

  test('names are checked by the schema: 422 invalid_format, invalid_value on status, unknown fields refused', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: 'web 1', driver: 'agent', hostname: 'a.example' }, 'body.name', 'invalid_format'],
      [{ name: '-web', driver: 'agent', hostname: 'a.example' }, 'body.name', 'invalid_format'],
      [
        { name: 'web-9', driver: 'agent', hostname: 'a.example', status: 'gone' },
        'body.status',
        'invalid_value',
      ],
      [{ name: 'web-9', driver: 'agent', hostname: 'a.example', token: 'x' }, 'body.token', 'unknown_field'],
      [{ name: 'web-9', driver: 'agent' }, 'body.hostname', 'required'],
    ]
    for (const [body, location, code] of cases) {
      const response = await tp.request('POST', '/api/v1/nodes', { token: staffToken, body })
      await expectFieldProblem(response, 422, 'validation_failed', location, code)
    }
  })

  test('a name another node has, in any case, is 409 node_name_taken at body.name', async () => {
    await createNode({ name: 'Frankfurt-1', driver: 'agent', hostname: 'fra1.example' })
    for (const name of ['Frankfurt-1', 'frankfurt-1', 'FRANKFURT-1', 'LOCAL']) {
      const response = await tp.request('POST', '/api/v1/nodes', {
        token: staffToken,
        body: { name, driver: 'agent', hostname: 'fra2.example' },
      })
      await expectFieldProblem(response, 409, 'node_name_taken', 'body.name')
    }
  })

  test('the same Idempotency-Key replays the first answer, agent token included, and adds nothing', async () => {
    const headers = { 'idempotency-key': `node-${crypto.randomUUID()}` }
    const body = { name: uniqueName('idem'), driver: 'agent', hostname: 'idem.example' }
    const first = await tp.request('POST', '/api/v1/nodes', { token: staffToken, body, headers })
    const again = await tp.request('POST', '/api/v1/nodes', { token: staffToken, body, headers })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.json()).toEqual(await first.json())
    const named = (await listNodes('?limit=100')).items.filter((node) => node.name === body.name)
    expect(named).toHaveLength(1)
  })

  test('is audited as node.create, without the token', async () => {
    const node = await createNode({ name: uniqueName(), driver: 'agent', hostname: 'audit.example' })
    const response = await tp.request('GET', `/api/v1/audit?subject=${node.id}`, { token: staffToken })
    const { items } = (await response.json()) as Page<{ action: string; details: unknown }>
    expect(items.map((entry) => entry.action)).toEqual(['node.create'])
    expect(items[0]?.details).toEqual({
      name: node.name,
      driver: 'agent',
      hostname: 'audit.example',
      status: 'active',
    })
    expect(JSON.stringify(items)).not.toContain(node.agentToken)
  })
})

describe('reading and listing', () => {
  test('an unknown or malformed node id is 404', async () => {
    for (const id of ['nod_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'nothing', 'site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W']) {
      await expectProblem(
        await tp.request('GET', `/api/v1/nodes/${id}`, { token: staffToken }),
        404,
        'not_found',
      )
      const patch = await tp.request('PATCH', `/api/v1/nodes/${id}`, {
        token: staffToken,
        body: { status: 'disabled' },
      })
      await expectProblem(patch, 404, 'not_found')
      const rotate = await tp.request('POST', `/api/v1/nodes/${id}/rotate-agent-token`, { token: staffToken })
      await expectProblem(rotate, 404, 'not_found')
    }
  })

  test('pages with a cursor, and `status` narrows the list', async () => {
    const disabled = await createNode({
      name: uniqueName(),
      driver: 'agent',
      hostname: 'd.example',
      status: 'disabled',
    })
    const all = (await listNodes('?limit=100')).items
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Page<Node> = await listNodes(
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      expect(page.items.length).toBeLessThanOrEqual(2)
      seen.push(...page.items.map((node) => node.id))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toEqual(all.map((node) => node.id))
    expect(seen).toEqual(seen.toSorted())
    const onlyDisabled = (await listNodes('?status=disabled&limit=100')).items
    expect(onlyDisabled.map((node) => node.id)).toContain(disabled.id)
    expect(onlyDisabled.every((node) => node.status === 'disabled')).toBe(true)
    const bad = await tp.request('GET', '/api/v1/nodes?status=broken', { token: staffToken })
    await expectFieldProblem(bad, 422, 'validation_failed', 'query.status', 'invalid_value')
  })

  test('a cursor of another filter is 400 invalid_cursor', async () => {
    const first = await listNodes('?limit=1')
    expect(first.nextCursor).not.toBeNull()
    const response = await tp.request(
      'GET',
      `/api/v1/nodes?limit=1&status=active&cursor=${encodeURIComponent(first.nextCursor ?? '')}`,
      { token: staffToken },
    )
    await expectProblem(response, 400, 'invalid_cursor')
  })
})

describe('changing a node', () => {
  test('changes only the fields sent, stamps updatedAt, and audits node.update with what changed', async () => {
    const node = await createNode({ name: uniqueName(), driver: 'agent', hostname: 'old.example' })
    await Bun.sleep(2)
    const response = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { hostname: 'New.Example' },
    })
    expect(response.status).toBe(200)
    const changed = (await response.json()) as Node
    expect(changed).toEqual({
      id: node.id,
      name: node.name,
      driver: 'agent',
      hostname: 'new.example',
      status: 'active',
      ready: node.ready,
      notReady: node.notReady,
      agent: node.agent,
      siteDefaults: { cpuPercent: 100, memoryMB: 1024, processes: 128 },
      inventory: null,
      createdAt: node.createdAt,
      updatedAt: expect.any(String),
    })
    expect(changed.updatedAt > node.updatedAt).toBe(true)
    const read = await tp.request('GET', `/api/v1/nodes/${node.id}`, { token: staffToken })
    expect(await read.json()).toEqual(changed)
    const drained = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { status: 'draining', name: `${node.name}-renamed` },
    })
    expect(await drained.json()).toMatchObject({
      name: `${node.name}-renamed`,
      status: 'draining',
      hostname: 'new.example',
    })
    expect((await directory.find(node.id))?.status).toBe('draining')
    const audit = await tp.request('GET', `/api/v1/audit?subject=${node.id}`, { token: staffToken })
    const { items } = (await audit.json()) as Page<{ action: string; details: unknown }>
    expect(items.map((entry) => [entry.action, entry.details])).toEqual([
      ['node.update', { name: `${node.name}-renamed`, status: 'draining' }],
      ['node.update', { hostname: 'new.example' }],
      ['node.create', expect.any(Object)],
    ])
  })

  test('a body that changes nothing answers the node as it is and writes no audit entry', async () => {
    const node = await createNode({ name: uniqueName(), driver: 'agent', hostname: 'same.example' })
    const response = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { name: node.name, hostname: 'SAME.example', status: 'active' },
    })
    const { agentToken: _token, ...stored } = node
    expect(await response.json()).toEqual(stored)
    const audit = await tp.request('GET', `/api/v1/audit?subject=${node.id}`, { token: staffToken })
    expect(((await audit.json()) as Page<{ action: string }>).items.map((entry) => entry.action)).toEqual([
      'node.create',
    ])
  })

  test('refuses per field: 422 invalid_hostname, 409 node_name_taken (its own name in another case is fine), and the driver cannot change', async () => {
    const node = await createNode({ name: uniqueName('patch'), driver: 'agent', hostname: 'p.example' })
    const bad = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { hostname: 'a:b:c' },
    })
    await expectFieldProblem(bad, 422, 'invalid_hostname', 'body.hostname')
    const taken = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { name: 'Local' },
    })
    await expectFieldProblem(taken, 409, 'node_name_taken', 'body.name')
    const recased = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { name: node.name.toUpperCase() },
    })
    expect(((await recased.json()) as Node).name).toBe(node.name.toUpperCase())
    const driver = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { driver: 'local' },
    })
    await expectFieldProblem(driver, 422, 'validation_failed', 'body.driver', 'unknown_field')
    const status = await tp.request('PATCH', `/api/v1/nodes/${node.id}`, {
      token: staffToken,
      body: { status: 'off' },
    })
    await expectFieldProblem(status, 422, 'validation_failed', 'body.status', 'invalid_value')
    const read = (await (
      await tp.request('GET', `/api/v1/nodes/${node.id}`, { token: staffToken })
    ).json()) as Node
    expect(read).toMatchObject({ hostname: 'p.example', status: 'active', driver: 'agent' })
  })
})

describe('rotating the agent token', () => {
  test('answers a new token once, audited as node.rotateAgentToken', async () => {
    const node = await createNode({ name: uniqueName(), driver: 'agent', hostname: 'r.example' })
    const response = await tp.request('POST', `/api/v1/nodes/${node.id}/rotate-agent-token`, {
      token: staffToken,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const rotated = (await response.json()) as NodeWithToken
    const { agentToken, ...rest } = rotated
    expect(agentToken).toMatch(/^plinth_node_[0-9A-Za-z]{46}$/)
    expect(agentToken).not.toBe(node.agentToken)
    expect(rest).toEqual({ ...(await directory.find(node.id)), id: node.id } as Node)
    const audit = await tp.request('GET', `/api/v1/audit?subject=${node.id}`, { token: staffToken })
    const { items } = (await audit.json()) as Page<{ action: string }>
    expect(items.map((entry) => entry.action)).toEqual(['node.rotateAgentToken', 'node.create'])
    expect(JSON.stringify(items)).not.toContain(agentToken)
  })
})

describe('who may use the nodes area', () => {
  const attempts = (id: string) =>
    [
      ['GET', '/api/v1/nodes', undefined],
      ['GET', `/api/v1/nodes/${id}`, undefined],
      ['POST', '/api/v1/nodes', { name: 'sneaky', driver: 'agent', hostname: 's.example' }],
      ['PATCH', `/api/v1/nodes/${id}`, { status: 'disabled' }],
      ['POST', `/api/v1/nodes/${id}/rotate-agent-token`, undefined],
      ['POST', `/api/v1/nodes/${id}/reconcile`, undefined],
    ] as const

  test('brand staff are refused with 403 insufficient_scope: nodes are for platform staff only', async () => {
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: 'brand-staff@example.test',
      staffRole: 'brand',
      brandId: brandA,
    })
    const token = await tp.token({ user: brandStaff })
    const local = (await listNodes()).items[0]?.id ?? ''
    for (const [method, path, body] of attempts(local)) {
      const response = await tp.request(method, path, { token, body })
      const problem = await expectProblem(response, 403, 'insufficient_scope')
      expect(problem.scope).toMatch(/^node:(read|manage)$/)
    }
  })

  test('a platform staff token limited to a customer is refused with 403 staff_only', async () => {
    const token = await tp.token({ customerId: customerA })
    const local = (await listNodes()).items[0]?.id ?? ''
    for (const [method, path, body] of attempts(local)) {
      await expectProblem(await tp.request(method, path, { token, body }), 403, 'staff_only')
    }
  })

  test('a team member, even an owner, is refused with 403 staff_only', async () => {
    const owner = await createTestUser(tp.panel.store.db, { email: 'owner@example.test', staffRole: null })
    await tenancy.members.add(tp.panel.store.db, customerA, owner.id, 'owner')
    const token = await tp.token({ user: owner })
    const local = (await listNodes()).items[0]?.id ?? ''
    for (const [method, path, body] of attempts(local)) {
      await expectProblem(await tp.request(method, path, { token, body }), 403, 'staff_only')
    }
  })

  test('a platform staff token without the node scopes is 403 insufficient_scope; node:read does not allow changes', async () => {
    const none = await tp.token({ scopes: ['site:read'] })
    await expectProblem(await tp.request('GET', '/api/v1/nodes', { token: none }), 403, 'insufficient_scope')
    const reader = await tp.token({ scopes: ['node:read'] })
    expect((await tp.request('GET', '/api/v1/nodes', { token: reader })).status).toBe(200)
    const create = await tp.request('POST', '/api/v1/nodes', {
      token: reader,
      body: { name: uniqueName(), driver: 'agent', hostname: 'x.example' },
    })
    const problem = await expectProblem(create, 403, 'insufficient_scope')
    expect(problem.scope).toBe('node:manage')
  })

  test('without credentials every operation is 401', async () => {
    await expectProblem(await tp.request('GET', '/api/v1/nodes'), 401, 'unauthenticated')
  })
})

describe('the node directory', () => {
  test('finds nodes, and sends a command through the node’s driver; a node whose driver is not installed throws', async () => {
    const node = await createNode({ name: uniqueName(), driver: 'agent', hostname: 'dir.example' })
    const found = await directory.find(node.id)
    expect(found?.name).toBe(node.name)
    expect(await directory.find('nod_01JDQ3V6Y4T1ZK0M2N5P7R9S8W')).toBeNull()
    const local = (await directory.activeNodes())[0] as Node
    const site = {
      id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
      handle: 'x',
      domain: 'x.example.com',
      type: 'static',
    }
    const spec = { ...site, customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA', diskMB: null }
    // The local driver lays out files only here: a report of a site it never had says so.
    expect(
      await directory.send(local, nodeCommand('report', spec), AbortSignal.timeout(5_000)),
    ).toMatchObject({
      state: 'absent',
    })
    await expect(
      directory.send({ ...local, driver: 'gone' }, nodeCommand('report', spec), AbortSignal.timeout(5_000)),
    ).rejects.toThrow(/driver "gone", which is not installed/)
  })
})
