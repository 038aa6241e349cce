// A node's agent is charged to the node's own allowance, never to its address: a site's code on the node shares
// that address (the local node, or a node behind one public address), and a flood from it must not get the agent
// 429s and the node shown disconnected. A bad agent token is still charged to the address.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  expectProblem,
  filesOnlyNode,
  type TestPanel,
} from '../../../hosts/testing/index.ts'
import type { Node } from '../contract.ts'

/** The address the node and its sites share. */
const nodeAddress = '203.0.113.40'
const perMinute = 4

let tp: TestPanel
let staff: string
const nodes: { id: string; agentToken: string }[] = []

const asAgent = (token: string, path: string, body: unknown, address = nodeAddress) =>
  tp.panel.handle(
    new Request(`http://localhost/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { address },
  )
const poll = (token: string, session: string, address = nodeAddress) =>
  asAgent(
    token,
    '/agent/work',
    { session, version: 'test', capabilities: filesOnlyNode, waitSeconds: 0 },
    address,
  )
/** What a site's PHP can send the panel from the node's address: anonymous requests. */
const fromSite = () => tp.panel.handle(new Request('http://localhost/api/v1/me'), { address: nodeAddress })

beforeAll(async () => {
  tp = await createTestPanel({ rateLimits: { perMinute } })
  staff = await tp.token()
  for (const name of ['remote-one', 'remote-two']) {
    const answer = await tp.request('POST', '/api/v1/nodes', {
      token: staff,
      body: { name, driver: 'agent', hostname: `${name}.example.test` },
    })
    nodes.push((await answer.json()) as { id: string; agentToken: string })
  }
})
afterAll(() => tp.panel.close())

describe('an agent’s allowance', () => {
  test('its polls pass while its sites have spent the address’s allowance; it has its own limit', async () => {
    const [one, two] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    for (let i = 0; i < perMinute; i++) expect((await fromSite()).status).toBe(401)
    await expectProblem(await fromSite(), 429, 'rate_limited')

    const answers = []
    for (let i = 0; i < perMinute; i++) answers.push(await poll(one.agentToken, 'one-session'))
    expect(answers.map((answer) => answer.status)).toEqual(Array(perMinute).fill(200))
    // The headers it gets are its node's allowance.
    expect(answers[0]?.headers.get('ratelimit')).toMatch(new RegExp(`^"default";r=${perMinute - 1};`))
    const node = (await (await tp.request('GET', `/api/v1/nodes/${one.id}`, { token: staff })).json()) as Node
    expect(node.agent).toMatchObject({ connected: true })
    // The node's own allowance is shared by its agent's routes and limited like a token's.
    await expectProblem(
      await asAgent(one.agentToken, '/agent/leaving', { session: 'one-session' }),
      429,
      'rate_limited',
    )
    // Another node behind the same address has its own.
    expect((await poll(two.agentToken, 'two-session')).status).toBe(200)
    expect((await asAgent(two.agentToken, '/agent/leaving', { session: 'two-session' })).status).toBe(204)
    // The sites' address is still spent.
    await expectProblem(await fromSite(), 429, 'rate_limited')
  })

  test('a bad agent token is charged to the address', async () => {
    const address = '203.0.113.41'
    const statuses: number[] = []
    for (let i = 0; i <= perMinute; i++)
      statuses.push((await poll(`plinth_node_junk${i}`, 'junk-session', address)).status)
    expect(statuses.slice(0, perMinute)).toEqual(Array(perMinute).fill(401))
    expect(statuses[perMinute]).toBe(429)
    // The node's good token from there still passes: it was never the address's.
    const [, two] = nodes as [unknown, (typeof nodes)[0]]
    expect((await poll(two.agentToken, 'two-session', address)).status).toBe(200)
  })
})
