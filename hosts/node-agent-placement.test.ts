// Placement with a real agent on a second node (the panel and `npm run agent` as processes on loopback, the node's
// own nginx, PHP-FPM, WordPress and MariaDB): a node whose agent never connected receives no site, neither chosen
// (`nodeId`) nor by automatic placement (where "fewest sites" once picked the empty new node), refused at once with a
// code and nothing kept; once its agent connected and said it serves, the same request creates a real WordPress
// site there, never a placeholder.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Node } from '../plugins/nodes/contract.ts'
import type { Site } from '../plugins/sites/contract.ts'
import {
  apiClient,
  cliStaffToken,
  createProcessTracker,
  freePort,
  type Standalone,
  waitFor,
} from './testing/index.ts'

const { tempDataDir, runCli, startStandalone, startAgent, cleanup } =
  createProcessTracker('plinth-placement-')
afterAll(cleanup)

let panel: Standalone
let call: ReturnType<typeof apiClient>
let customerId: string
let node: Node & { agentToken: string }
let localId: string

interface Refusal {
  readonly code: string
  readonly detail: string
  readonly nodeId?: string
  readonly notReady?: { code: string }[]
  readonly nodes?: { id: string; notReady: { code: string }[] }[]
  readonly errors?: { location: string; code: string }[]
}
const createSite = (domain: string, extra: Record<string, unknown> = {}) =>
  call<Site & Refusal>('POST', '/sites', { customerId, name: 'Blog', type: 'wordpress', domain, ...extra })
const siteCount = async () => (await call<{ items: unknown[] }>('GET', '/sites')).body.items.length

beforeAll(async () => {
  const dataDir = tempDataDir()
  panel = await startStandalone(dataDir, { JOB_LEASE_MS: '2000' })
  call = apiClient(panel, await cliStaffToken(runCli, dataDir))
  customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
  // The local node takes no new sites: the new node is the only candidate, and the emptiest.
  const local = (await call<{ items: Node[] }>('GET', '/nodes')).body.items.find(
    (each) => each.driver === 'local',
  )
  localId = local?.id ?? ''
  expect((await call('PATCH', `/nodes/${localId}`, { status: 'draining' })).status).toBe(200)
  const created = await call<Node & { agentToken: string }>('POST', '/nodes', {
    name: 'edge-1',
    driver: 'agent',
    hostname: '127.0.0.1',
  })
  expect(created.status).toBe(201)
  node = created.body
})

describe('a node whose agent never connected', () => {
  test('reads not ready, saying its agent never called', async () => {
    const read = await call<Node>('GET', `/nodes/${node.id}`)
    expect(read.body.ready).toBe(false)
    expect(read.body.notReady.map((reason) => reason.code)).toEqual(['agent_never_connected'])
  })

  test('receives no site by automatic placement: 409 no_node_ready naming it and why; nothing kept', async () => {
    const refused = await createSite('auto.example.test')
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('no_node_ready')
    expect(refused.body.detail).toContain('edge-1: its agent never called the panel')
    expect(refused.body.nodes).toEqual([
      expect.objectContaining({
        id: node.id,
        notReady: [expect.objectContaining({ code: 'agent_never_connected' })],
      }),
    ])
    expect(await siteCount()).toBe(0)
  })

  test('receives no site chosen by staff either: 409 node_not_ready at body.nodeId; nothing kept', async () => {
    const refused = await createSite('chosen.example.test', { nodeId: node.id })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('node_not_ready')
    expect(refused.body.nodeId).toBe(node.id)
    expect(refused.body.notReady?.map((reason) => reason.code)).toEqual(['agent_never_connected'])
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ location: 'body.nodeId', code: 'node_not_ready' }),
    ])
    // A draining node is refused as such, an unknown one at its field.
    const draining = await createSite('chosen.example.test', { nodeId: localId })
    expect([draining.status, draining.body.code]).toEqual([409, 'node_not_accepting'])
    const unknown = await createSite('chosen.example.test', { nodeId: 'nod_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' })
    expect([unknown.status, unknown.body.code]).toEqual([422, 'unknown_node'])
    expect(await siteCount()).toBe(0)
  })
})

describe('once its agent connected and said it serves', () => {
  let agent: Awaited<ReturnType<typeof startAgent>>
  beforeAll(async () => {
    // The node's own MariaDB (made in seconds on its first start) takes the sites' databases.
    agent = await startAgent(panel, node.agentToken, { env: { NODE_DATABASE_PORT: String(freePort()) } })
  }, 60_000)

  test('the node reads ready, and the same request creates a real WordPress site there, not a placeholder', async () => {
    const read = await call<Node>('GET', `/nodes/${node.id}`)
    expect([read.body.ready, read.body.notReady]).toEqual([true, []])
    const domain = 'auto.example.test'
    const created = await createSite(domain)
    expect(created.status).toBe(201)
    expect(created.body.nodeId).toBe(node.id)
    const site = await waitFor(
      'the site to be provisioned',
      async () => {
        const current = await call<Site>('GET', `/sites/${created.body.id}`)
        if (current.body.status !== 'provisioning') return current.body
        await Bun.sleep(200)
        return null
      },
      120_000,
    )
    expect([site.status, site.error]).toEqual(['active', null])
    // WordPress's front page with the site's title, from the node's own nginx: no placeholder.
    const front = await agent.fromNode(domain)
    expect(front.status).toBe(200)
    expect(await front.text()).toContain('<title>Blog')
  }, 150_000)
})
