// POST /api/v1/nodes/{id}/metrics as a node agent sees it: its own token only, all-or-nothing, counted in usage.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import {
  brandB,
  createTestPanel,
  createTestUser,
  customerA,
  customerB,
  expectFieldProblem,
  expectProblem,
  fixturePlugin,
  type TestPanel,
  temporaryDataDir,
  twoTenants,
} from '../../hosts/testing/index.ts'
import { type LocatedSite, type Node, siteLocators } from './contract.ts'
import { nodesPlugin } from './index.ts'
import type { RecentTraffic } from './traffic.ts'

type NodeWithToken = Node & { agentToken: string }

const dataDir = temporaryDataDir()
/** Where the fake sites live: site id → customer and node, filled once the nodes exist. */
const wordpressSites = new Map<string, LocatedSite>()
const staticSites = new Map<string, LocatedSite>()

/** Two plugins' worth of sites, each telling the nodes plugin where its sites are (as the sites plugin does). */
const fakeSitesPlugin = definePlugin({
  name: 'fake-sites',
  version: '1.0.0',
  description: 'Stands in for the sites plugin (and another plugin owning sites) as site locators.',
  requires: ['nodes'],
  setup(context) {
    const locatorOf = (sites: Map<string, LocatedSite>) => async (ids: readonly string[]) =>
      new Map(ids.flatMap((id) => (sites.has(id) ? [[id, sites.get(id) as LocatedSite] as const] : [])))
    context.extensionPoint(siteLocators).add({ name: 'fake-wordpress', locate: locatorOf(wordpressSites) })
    context.extensionPoint(siteLocators).add({ name: 'fake-static', locate: locatorOf(staticSites) })
  },
})

const site = {
  a1: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
  a2: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA2',
  b1: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SB1',
  elsewhere: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SE1',
  unknown: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SZZ',
}

let tp: TestPanel
let staffToken: string
let nodeX: NodeWithToken
let nodeY: NodeWithToken

async function createNode(name: string): Promise<NodeWithToken> {
  const response = await tp.request('POST', '/api/v1/nodes', {
    token: staffToken,
    body: { name, driver: 'local', hostname: `${name}.example` },
  })
  expect(response.status).toBe(201)
  return (await response.json()) as NodeWithToken
}

function report(node: Node, agentToken: string | null, samples: unknown) {
  return tp.request('POST', `/api/v1/nodes/${node.id}/metrics`, {
    body: { samples },
    ...(agentToken === null ? {} : { headers: { authorization: `Bearer ${agentToken}` } }),
  })
}

async function traffic(token = staffToken): Promise<RecentTraffic> {
  const response = await tp.request('GET', '/api/v1/usage', { token })
  expect(response.status).toBe(200)
  return ((await response.json()) as { traffic: RecentTraffic }).traffic
}

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      fixturePlugin({ description: 'Two brands with a customer each.', tenants: twoTenants }),
      nodesPlugin({ dataDir }),
      fakeSitesPlugin,
    ],
  })
  staffToken = await tp.token()
  nodeX = await createNode('node-x')
  nodeY = await createNode('node-y')
  wordpressSites.set(site.a1, { customerId: customerA, nodeId: nodeX.id })
  wordpressSites.set(site.b1, { customerId: customerB, nodeId: nodeX.id })
  wordpressSites.set(site.elsewhere, { customerId: customerA, nodeId: nodeY.id })
  staticSites.set(site.a2, { customerId: customerA, nodeId: nodeX.id })
})
afterAll(() => tp.panel.close())

describe('a node reporting with its own agent token', () => {
  test('records every sample, and GET /api/v1/usage sums them within each caller’s view', async () => {
    const before = await traffic()
    const beforeA = await traffic(await tp.token({ customerId: customerA }))
    const response = await report(nodeX, nodeX.agentToken, [
      { siteId: site.a1, requests: 100, bytes: 10_000 },
      { siteId: site.a2, requests: 5, bytes: 500, at: hoursAgo(1) },
      { siteId: site.b1, requests: 7, bytes: 700 },
      { siteId: site.a1, requests: 1, bytes: 1, at: hoursAgo(48) },
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ recorded: 4 })
    const after = await traffic()
    expect(after.last24h.requests - before.last24h.requests).toBe(112)
    expect(after.last24h.bytes - before.last24h.bytes).toBe(11_200)
    // Two days ago counts in the week, not in the day.
    expect(after.last7d.requests - before.last7d.requests).toBe(113)
    const afterA = await traffic(await tp.token({ customerId: customerA }))
    expect(afterA.last24h.requests - beforeA.last24h.requests).toBe(105)
    expect(afterA.last7d.bytes - beforeA.last7d.bytes).toBe(10_501)
  })

  test('brand staff see only the traffic of their brand’s customers', async () => {
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: 'brand-b@example.test',
      staffRole: 'brand',
      brandId: brandB,
    })
    const token = await tp.token({ user: brandStaff })
    const before = await traffic(token)
    const response = await report(nodeX, nodeX.agentToken, [
      { siteId: site.a1, requests: 1000, bytes: 1000 },
      { siteId: site.b1, requests: 3, bytes: 30 },
    ])
    expect(response.status).toBe(200)
    const after = await traffic(token)
    expect(after.last24h.requests - before.last24h.requests).toBe(3)
  })

  test('a draining node still reports; a disabled one is refused with 403 node_disabled and nothing recorded', async () => {
    const node = await createNode('node-drain')
    wordpressSites.set('site_01JDQ3V6Y4T1ZK0M2N5P7R9SD1', { customerId: customerA, nodeId: node.id })
    const samples = [{ siteId: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SD1', requests: 2, bytes: 2 }]
    const patch = (status: string) =>
      tp.request('PATCH', `/api/v1/nodes/${node.id}`, { token: staffToken, body: { status } })
    expect((await patch('draining')).status).toBe(200)
    expect((await report(node, node.agentToken, samples)).status).toBe(200)
    expect((await patch('disabled')).status).toBe(200)
    const before = await traffic()
    await expectProblem(await report(node, node.agentToken, samples), 403, 'node_disabled')
    expect(await traffic()).toEqual(before)
    expect((await patch('active')).status).toBe(200)
    expect((await report(node, node.agentToken, samples)).status).toBe(200)
  })
})

describe('credentials', () => {
  const samples = [{ siteId: site.a1, requests: 1, bytes: 1 }]

  async function refusedAsInvalid(response: Response): Promise<void> {
    const body = await expectProblem(response, 401, 'invalid_agent_token')
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plinth-node", error="invalid_token"')
    expect(body as unknown).toEqual({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: 'The agent token is not valid for this node.',
      code: 'invalid_agent_token',
      requestId: expect.any(String),
    })
  }

  test('without a token: 401 unauthenticated with a Bearer challenge', async () => {
    const response = await report(nodeX, null, samples)
    await expectProblem(response, 401, 'unauthenticated')
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plinth-node"')
  })

  test('a wrong, malformed or mistyped token is 401 invalid_agent_token, and records nothing', async () => {
    const before = await traffic()
    const lastChar = nodeX.agentToken.at(-1) === 'a' ? 'b' : 'a'
    for (const token of [
      `${nodeX.agentToken.slice(0, -1)}${lastChar}`,
      'plinth_node_short',
      nodeX.agentToken.toLowerCase(),
      '',
    ]) {
      await refusedAsInvalid(await report(nodeX, token, samples))
    }
    const basic = await tp.request('POST', `/api/v1/nodes/${nodeX.id}/metrics`, {
      body: { samples },
      headers: { authorization: `Basic ${btoa('node:secret')}` },
    })
    await refusedAsInvalid(basic)
    expect(await traffic()).toEqual(before)
  })

  test('another node’s token, or a staff API token, is refused like a wrong one', async () => {
    await refusedAsInvalid(await report(nodeX, nodeY.agentToken, samples))
    await refusedAsInvalid(await report(nodeY, nodeX.agentToken, samples))
    await refusedAsInvalid(await report(nodeX, staffToken, samples))
  })

  test('a node that does not exist answers exactly like a wrong token: nothing tells whether it exists', async () => {
    const ghost = { ...nodeX, id: 'nod_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' }
    await refusedAsInvalid(await report(ghost, nodeX.agentToken, samples))
    await refusedAsInvalid(await report({ ...nodeX, id: 'not-a-node-id' }, nodeX.agentToken, samples))
    const ghostMissing = await report(ghost, null, samples)
    await expectProblem(ghostMissing, 401, 'unauthenticated')
  })

  test('the seeded local node has no agent token until staff rotate one', async () => {
    const nodes = await tp.request('GET', '/api/v1/nodes?limit=100', { token: staffToken })
    const local = ((await nodes.json()) as { items: Node[] }).items.find(
      (node) => node.name === 'local',
    ) as Node
    wordpressSites.set('site_01JDQ3V6Y4T1ZK0M2N5P7R9SL1', { customerId: customerA, nodeId: local.id })
    const localSamples = [{ siteId: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SL1', requests: 1, bytes: 1 }]
    await refusedAsInvalid(await report(local, nodeX.agentToken, localSamples))
    const rotated = await tp.request('POST', `/api/v1/nodes/${local.id}/rotate-agent-token`, {
      token: staffToken,
    })
    const { agentToken } = (await rotated.json()) as NodeWithToken
    expect((await report(local, agentToken, localSamples)).status).toBe(200)
  })

  test('rotation: the old token stops working at once, the new one works', async () => {
    const node = await createNode('node-rotate')
    wordpressSites.set('site_01JDQ3V6Y4T1ZK0M2N5P7R9SR1', { customerId: customerB, nodeId: node.id })
    const ownSamples = [{ siteId: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SR1', requests: 1, bytes: 1 }]
    expect((await report(node, node.agentToken, ownSamples)).status).toBe(200)
    const rotated = await tp.request('POST', `/api/v1/nodes/${node.id}/rotate-agent-token`, {
      token: staffToken,
    })
    const { agentToken } = (await rotated.json()) as NodeWithToken
    await refusedAsInvalid(await report(node, node.agentToken, ownSamples))
    expect((await report(node, agentToken, ownSamples)).status).toBe(200)
  })
})

describe('anonymous callers', () => {
  const metricsRequest = (nodeId: string, body: string, headers: Record<string, string> = {}) =>
    new Request(`http://localhost/api/v1/nodes/${nodeId}/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    })
  // Past the 1 MiB body limit, and not JSON either: read, it would be 413 or 400.
  const huge = `{"samples": [${'9'.repeat(2 * 1024 * 1024)}`

  test('are refused with 401 before the body is read: never 400, 413 or 422 for what they send', async () => {
    for (const body of [huge, 'not json', '{"samples": []}', JSON.stringify({ samples: [{ siteId: 1 }] })]) {
      const anonymous = metricsRequest(nodeX.id, body)
      await expectProblem(await tp.panel.handle(anonymous), 401, 'unauthenticated')
      expect(anonymous.bodyUsed).toBe(false)
      const wrong = metricsRequest(nodeX.id, body, { authorization: `Bearer ${nodeY.agentToken}` })
      await expectProblem(await tp.panel.handle(wrong), 401, 'invalid_agent_token')
      expect(wrong.bodyUsed).toBe(false)
    }
    // The node itself gets the refusals of what it sent.
    const own = { authorization: `Bearer ${nodeX.agentToken}` }
    await expectProblem(await tp.panel.handle(metricsRequest(nodeX.id, huge, own)), 413, 'body_too_large')
    await expectProblem(
      await tp.panel.handle(metricsRequest(nodeX.id, 'not json', own)),
      400,
      'malformed_json',
    )
  })

  test('are rate limited per address', async () => {
    const limited = await createTestPanel({
      standard: false,
      plugins: [nodesPlugin({ dataDir: temporaryDataDir() })],
      rateLimits: { perMinute: 3 },
    })
    try {
      const send = (address: string) => limited.panel.handle(metricsRequest(nodeX.id, huge), { address })
      for (let i = 0; i < 3; i++) await expectProblem(await send('203.0.113.9'), 401, 'unauthenticated')
      await expectProblem(await send('203.0.113.9'), 429, 'rate_limited')
      await expectProblem(await send('198.51.100.7'), 401, 'unauthenticated')
    } finally {
      await limited.panel.close()
    }
  })
})

describe('refused reports record nothing', () => {
  test('an unknown site is 422 unknown_site at its sample, and the good samples beside it are not recorded', async () => {
    const before = await traffic()
    const response = await report(nodeX, nodeX.agentToken, [
      { siteId: site.a1, requests: 50, bytes: 50 },
      { siteId: site.unknown, requests: 1, bytes: 1 },
    ])
    await expectFieldProblem(response, 422, 'unknown_site', 'body.samples.1.siteId')
    expect(await traffic()).toEqual(before)
  })

  test('a site on another node is refused like an unknown one', async () => {
    const response = await report(nodeX, nodeX.agentToken, [
      { siteId: site.elsewhere, requests: 1, bytes: 1 },
    ])
    await expectFieldProblem(response, 422, 'unknown_site', 'body.samples.0.siteId')
    const own = await report(nodeY, nodeY.agentToken, [{ siteId: site.elsewhere, requests: 1, bytes: 1 }])
    expect(own.status).toBe(200)
  })

  test('a sample more than 7 days old is 422 sample_too_old; one dated ahead of the clock is 422 sample_in_future', async () => {
    const before = await traffic()
    const old = await report(nodeX, nodeX.agentToken, [
      { siteId: site.a1, requests: 1, bytes: 1, at: hoursAgo(7 * 24 + 1) },
    ])
    await expectFieldProblem(old, 422, 'sample_too_old', 'body.samples.0.at')
    const ahead = await report(nodeX, nodeX.agentToken, [
      { siteId: site.a1, requests: 1, bytes: 1 },
      { siteId: site.a1, requests: 1, bytes: 1, at: hoursAgo(-1) },
    ])
    await expectFieldProblem(ahead, 422, 'sample_in_future', 'body.samples.1.at')
    expect(await traffic()).toEqual(before)
    // A node clock a minute fast is tolerated.
    const skewed = await report(nodeX, nodeX.agentToken, [
      { siteId: site.a1, requests: 1, bytes: 1, at: new Date(Date.now() + 60_000).toISOString() },
    ])
    expect(skewed.status).toBe(200)
  })

  test('several refused samples are listed together under validation_failed', async () => {
    const response = await report(nodeX, nodeX.agentToken, [
      { siteId: site.unknown, requests: 1, bytes: 1 },
      { siteId: site.a1, requests: 1, bytes: 1, at: hoursAgo(24 * 30) },
    ])
    const body = await expectProblem(response, 422, 'validation_failed')
    expect(body.errors?.map((item) => [item.location, item.code])).toEqual([
      ['body.samples.1.at', 'sample_too_old'],
      ['body.samples.0.siteId', 'unknown_site'],
    ])
  })

  test('the body is bounded: at least one sample, at most 1000, whole numbers from 0, full date-times', async () => {
    const one = { siteId: site.a1, requests: 1, bytes: 1 }
    const cases: [unknown, string, string][] = [
      [[], 'body.samples', 'too_few_items'],
      [Array.from({ length: 1001 }, () => one), 'body.samples', 'too_many_items'],
      [[{ ...one, requests: -1 }], 'body.samples.0.requests', 'out_of_range'],
      [[{ ...one, bytes: 1.5 }], 'body.samples.0.bytes', 'invalid_type'],
      [[{ ...one, at: '2026-01-01' }], 'body.samples.0.at', 'invalid_format'],
      [[{ ...one, at: '2026-01-01Tnoon' }], 'body.samples.0.at', 'invalid_format'],
      [[{ ...one, at: '2026-02-30T10:00:00Z' }], 'body.samples.0.at', 'invalid_format'],
      [[{ ...one, siteId: '' }], 'body.samples.0.siteId', 'too_short'],
      [[{ ...one, extra: true }], 'body.samples.0.extra', 'unknown_field'],
    ]
    for (const [samples, location, code] of cases) {
      await expectFieldProblem(
        await report(nodeX, nodeX.agentToken, samples),
        422,
        'validation_failed',
        location,
        code,
      )
    }
  })
})

describe('disk use a node reports', () => {
  const disk = async (token = staffToken) => {
    const response = await tp.request('GET', '/api/v1/usage', { token })
    return ((await response.json()) as { disk: { usedBytes: number } }).disk.usedBytes
  }
  const reportDisk = (entries: unknown) =>
    tp.request('POST', `/api/v1/nodes/${nodeX.id}/metrics`, {
      body: { samples: [], disk: entries },
      headers: { authorization: `Bearer ${nodeX.agentToken}` },
    })

  test('replaces the node’s last measurement, counts only its own sites, and is summed within each view', async () => {
    const before = await disk()
    const first = await reportDisk([
      { siteId: site.a1, bytes: 1000 },
      { siteId: site.b1, bytes: 500 },
      // Another node's site and an unknown one are left out, not refused: disk is state, not a count.
      { siteId: site.elsewhere, bytes: 7 },
      { siteId: site.unknown, bytes: 9 },
    ])
    expect(first.status).toBe(200)
    expect(await disk()).toBe(before + 1500)
    // The next measurement replaces it: b1 is no longer on the node.
    expect((await reportDisk([{ siteId: site.a1, bytes: 2000 }])).status).toBe(200)
    expect(await disk()).toBe(before + 2000)
    // A customer sees its own sites' use only.
    const memberOfB = await tp.token({ customerId: customerB })
    expect(await disk(memberOfB)).toBe(0)
  })
})
