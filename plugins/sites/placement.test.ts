// Placement on ready nodes only, with the node's agent played by the test: a node that says it cannot serve (its
// port taken), an agent gone quiet, and a node staff choose are each refused at once with a code and nothing kept;
// a ready node takes the site; a failed site is not retried on a node that is not ready; only staff choose the node,
// and only staff learn which nodes could not take a site and why.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  filesOnlyNode,
  nodeWithPlayedAgent,
  type playAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from './contract.ts'

let tp: TestPanel
let token: string
let customerId: string
let nodeId: string
let agent: ReturnType<typeof playAgent>
let agentToken: string

const call = (method: string, path: string, body?: unknown, as = token) =>
  tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })
const createSite = (extra: Record<string, unknown> = {}, as = token) =>
  call(
    'POST',
    '/sites',
    {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
      ...extra,
    },
    as,
  )
const siteCount = async () =>
  ((await (await call('GET', '/sites')).json()) as { items: unknown[] }).items.length
/** The node, played, saying it cannot serve: another program holds its port. */
const portTaken = {
  ...filesOnlyNode,
  nginx: '1.22.1',
  php: '8.2.26',
  mode: 'serving',
  readiness: {
    ready: false,
    reasons: [{ code: 'port_taken', message: 'port 80 is taken by another program (nginx: bind() …)' }],
  },
}
const serving = { ...filesOnlyNode, readiness: { ready: true, reasons: [] } }

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 100, retryMaxMs: 200 } })
  tp.panel.start()
  token = await tp.token()
  const played = await nodeWithPlayedAgent(tp, token, 'edge')
  agent = played.agent
  nodeId = played.nodeId
  agentToken = played.node.agentToken
  customerId = ((await (await call('POST', '/customers', { name: 'Acme' })).json()) as { id: string }).id
})
afterAll(() => tp.panel.close())

describe('a node that says it cannot serve', () => {
  test('reads not ready with its reason, and receives no site, placed or chosen; nothing is kept', async () => {
    await agent.poll(portTaken)
    const node = (await (await call('GET', `/nodes/${nodeId}`)).json()) as {
      ready: boolean
      notReady: unknown[]
    }
    expect(node.ready).toBe(false)
    expect(node.notReady).toEqual(portTaken.readiness.reasons)
    const placed = await createSite()
    const body = (await placed.clone().json()) as { detail: string }
    expect(body.detail).toContain('edge: port 80 is taken by another program')
    await expectProblem(placed, 409, 'no_node_ready')
    const chosen = await createSite({ nodeId })
    expect(((await chosen.clone().json()) as { notReady: unknown }).notReady).toEqual(
      portTaken.readiness.reasons,
    )
    await expectProblem(chosen, 409, 'node_not_ready')
    expect(await siteCount()).toBe(0)
  })

  test('takes the site once it says it serves', async () => {
    await agent.poll(serving)
    const created = await createSite()
    expect(created.status).toBe(201)
    expect(((await created.json()) as Site).nodeId).toBe(nodeId)
  })
})

describe('a node chosen by someone other than platform staff', () => {
  test('is refused with 403 staff_only, whatever the node', async () => {
    const limited = await tp.token({ customerId })
    await expectProblem(await createSite({ nodeId }, limited), 403, 'staff_only')
  })
})

describe('a customer’s caller refused for want of a ready node', () => {
  // The nodes are the provider's: their names and why they cannot serve (a port taken, nginx missing) are for its
  // staff; a customer can do nothing about them and learns only that no server takes the site now.
  const secrets = ['edge', 'port 80', 'bind()', 'notReady', 'nodes']
  const expectNothingOfNodes = (body: unknown) => {
    const text = JSON.stringify(body)
    for (const secret of secrets) expect(text).not.toContain(secret)
  }

  test('learns no node’s name or reasons, as a member or with a customer-limited token; staff do', async () => {
    await agent.poll(portTaken)
    const owner = await createTestUser(tp.panel.store.db, {
      email: `owner-${crypto.randomUUID().slice(0, 8)}@example.test`,
      staffRole: null,
    })
    const added = await call('POST', `/customers/${customerId}/members`, {
      email: owner.email,
      role: 'owner',
    })
    expect(added.status).toBe(201)
    for (const as of [await tp.token({ user: owner }), await tp.token({ customerId })]) {
      const refused = await createSite({}, as)
      expectNothingOfNodes(await refused.clone().json())
      await expectProblem(refused, 409, 'no_node_ready')
    }
    const staffSees = (await (await createSite()).json()) as { nodes: { name: string }[] }
    expect(staffSees.nodes.map((node) => node.name)).toEqual(['edge'])
    await agent.poll(serving)
  })

  test('retrying a failed site on a node that is not ready learns no reason either', async () => {
    await agent.poll(serving)
    const created = (await (await createSite()).json()) as Site
    const command = await agent.command(created.id, 'provision')
    // Its job, which the customer reads, says it provisions on the node, not which.
    const job = await tp.request('GET', `/api/v1/jobs/${created.jobId}`, {
      token: await tp.token({ customerId }),
    })
    expect(((await job.json()) as { step: string }).step).toBe('Provisioning on its node')
    await agent.answer(command, {
      code: 'nginx_config_refused',
      message: 'refused',
      final: true,
    })
    await waitFor('the site to fail', async () => {
      const site = (await (await call('GET', `/sites/${created.id}`)).json()) as Site
      return site.status === 'failed'
    })
    await agent.poll(portTaken)
    const retried = await call(
      'POST',
      `/sites/${created.id}/retry`,
      undefined,
      await tp.token({ customerId }),
    )
    const body = (await retried.clone().json()) as { nodeId: string }
    // The site's own node id is the customer's to read (GET /sites/{id}); its name and reasons are not.
    expect(body.nodeId).toBe(nodeId)
    expectNothingOfNodes({ ...body, nodeId: undefined })
    await expectProblem(retried, 409, 'node_not_ready')
    await agent.poll(serving)
  })
})

describe('a failed site', () => {
  test('is not retried on a node that is not ready: 409 node_not_ready with the reasons', async () => {
    const created = (await (await createSite()).json()) as Site
    const command = await agent.command(created.id, 'provision')
    await agent.answer(command, { code: 'nginx_config_refused', message: 'refused', final: true })
    await waitFor(
      'the site to fail',
      async () => {
        const site = (await (await call('GET', `/sites/${created.id}`)).json()) as Site
        if (site.status === 'failed') return site
        await Bun.sleep(20)
        return null
      },
      10_000,
    )
    await agent.poll(portTaken)
    const retried = await call('POST', `/sites/${created.id}/retry`)
    expect(((await retried.clone().json()) as { nodeId: string }).nodeId).toBe(nodeId)
    await expectProblem(retried, 409, 'node_not_ready')
    await agent.poll(serving)
    expect((await call('POST', `/sites/${created.id}/retry`)).status).toBe(202)
  })
})

describe('an agent that stopped, saying so', () => {
  test('makes its node not ready at once (agent_disconnected, not never connected); its next poll makes it ready', async () => {
    await agent.poll(serving)
    const left = await tp.request('POST', '/api/v1/agent/leaving', {
      headers: { authorization: `Bearer ${agentToken}` },
      body: { session: 'played-agent' },
    })
    expect(left.status).toBe(204)
    const node = (await (await call('GET', `/nodes/${nodeId}`)).json()) as {
      notReady: { code: string; message: string }[]
    }
    expect(node.notReady).toEqual([
      { code: 'agent_disconnected', message: expect.stringContaining('its agent stopped') },
    ])
    await expectProblem(await createSite(), 409, 'no_node_ready')
    await agent.poll(serving)
    expect((await createSite()).status).toBe(201)
  })
})

describe('an agent gone quiet', () => {
  test('makes its node not ready (agent_disconnected) after a minute without a call', async () => {
    await tp.panel.store.db
      .withTables<{ nodes: { id: string; agent_seen_at: string | null } }>()
      .updateTable('nodes')
      .set({ agent_seen_at: new Date(Date.now() - 120_000).toISOString() })
      .where('id', '=', nodeId)
      .execute()
    const node = (await (await call('GET', `/nodes/${nodeId}`)).json()) as {
      ready: boolean
      notReady: { code: string }[]
    }
    expect([node.ready, node.notReady.map((reason) => reason.code)]).toEqual([false, ['agent_disconnected']])
    await expectProblem(await createSite(), 409, 'no_node_ready')
  })
})
