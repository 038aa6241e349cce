// What a node's agent answers its inventory with is not trusted: an agent taken over (or of another version) cannot
// make the panel store megabytes on the node and in `node.drifted`, nor act on another node's sites by naming them,
// and an answer of another shape fails the round and changes nothing.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  nodeWithPlayedAgent,
  type playAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'
import type { Node } from './contract.ts'

let tp: TestPanel
let token: string
let nodeId: string
let agent: ReturnType<typeof playAgent>
/** The customer of the sites the tests make (made by the first that needs one). */
let customerId: string

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
  tp.panel.start()
  token = await tp.token()
  const played = await nodeWithPlayedAgent(tp, token)
  agent = played.agent
  nodeId = played.nodeId
  // Its connection's round: it holds nothing. Over before the tests ask for theirs.
  const first = await inventoryCommand()
  await agent.answer(first, null, { sites: [], strays: [], services: {} })
  await jobEnded(first.jobId)
}, 60_000)
afterAll(async () => {
  await tp?.panel.close()
})

const node = async () =>
  (await (await tp.request('GET', `/api/v1/nodes/${nodeId}`, { token })).json()) as Node

const inventoryCommand = () =>
  waitFor(
    'the inventory command',
    async () => {
      const commands = await agent.poll(undefined, 1)
      return commands.find((command) => command.operation === 'inventory') ?? null
    },
    20_000,
  )

/** Job `id` once it ended. */
const jobEnded = (id: string) =>
  waitFor('the round to end', async () => {
    const job = (await (await tp.request('GET', `/api/v1/jobs/${id}`, { token })).json()) as {
      status: string
      result: Record<string, number> | null
      error: { code: string } | null
    }
    return job.status === 'succeeded' || job.status === 'failed' ? job : null
  })

/** Asks for a round, answers its inventory with `answer`, and waits for the job to end. */
async function roundAnswered(answer: unknown) {
  const asked = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
  expect(asked.status).toBe(202)
  const { jobId } = (await asked.json()) as { jobId: string }
  await agent.answer(await inventoryCommand(), null, answer)
  return jobEnded(jobId)
}

describe('an inventory as a node answers it', () => {
  test('what is kept of it is cut to the lengths the node’s record declares', async () => {
    const long = 'x'.repeat(100_000)
    const strays = Array.from({ length: 50 }, (_, index) => ({ kind: 'home', name: `${index}-${long}` }))
    const sites = [
      { id: `site_${long}`, domain: `${long}.example.com`, state: 'active', certificate: null, app: null },
    ]
    const job = await roundAnswered({ sites, strays, services: {} })
    expect(job.status).toBe('succeeded')
    const inventory = (await node()).inventory
    expect(inventory?.unknown).toHaveLength(51)
    for (const item of inventory?.unknown ?? []) {
      expect(item.name.length).toBeLessThanOrEqual(300)
      expect((item.domain ?? '').length).toBeLessThanOrEqual(253)
    }
    // The event says the node as its record is, no larger.
    const events = await tp.panel.store.db
      .withTables<{ event_outbox: { kind: string; payload: string } }>()
      .selectFrom('event_outbox')
      .selectAll()
      .where('kind', '=', 'node.drifted')
      .execute()
    expect(Math.max(...events.map((event) => event.payload.length))).toBeLessThan(64_000)
  })

  test('what a site of the node being provisioned leaves half made is the panel’s own, not unknown', async () => {
    const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
    customerId = ((await customer.json()) as { id: string }).id
    const created = await tp.request('POST', '/api/v1/sites', {
      token,
      body: {
        customerId,
        name: 'Shop',
        type: 'wordpress',
        domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
      },
    })
    expect(created.status).toBe(201)
    const { id, nodeId: placedOn } = (await created.json()) as { id: string; nodeId: string }
    expect(placedOn).toBe(nodeId)
    // Its provisioning is under way (the played agent has not answered it): its home has no `state.json` yet.
    const job = await roundAnswered({
      sites: [],
      strays: [
        { kind: 'home', name: id },
        { kind: 'server-block', name: id },
        { kind: 'server-block', name: 'hand-made' },
      ],
      services: {},
    })
    expect(job.status).toBe('succeeded')
    expect((await node()).inventory?.unknown).toEqual([{ kind: 'server-block', name: 'hand-made' }])
  })

  test('staff asking start their own round beside an automatic one under way, and one only however often they ask', async () => {
    // A new address starts an automatic round; the played agent has not answered it yet.
    expect(
      (await tp.request('PATCH', `/api/v1/nodes/${nodeId}`, { token, body: { hostname: '127.0.0.2' } }))
        .status,
    ).toBe(200)
    const automatic = await inventoryCommand()
    const ask = async () => {
      const asked = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
      expect(asked.status).toBe(202)
      return ((await asked.json()) as { jobId: string }).jobId
    }
    const staffs = await ask()
    expect(staffs).not.toBe(automatic.jobId)
    expect(await ask()).toBe(staffs)
    const empty = { sites: [], strays: [], services: {} }
    await agent.answer(automatic, null, empty)
    const own = await waitFor('the staff round’s inventory command', async () => {
      const commands = await agent.poll(undefined, 1)
      return commands.find((command) => command.operation === 'inventory' && command.jobId === staffs) ?? null
    })
    await agent.answer(own, null, empty)
    expect((await jobEnded(staffs)).status).toBe('succeeded')
    await jobEnded(automatic.jobId)
  })

  test('an automatic round answered after a staff round beside it undoes nothing the staff round put back', async () => {
    const created = await tp.request('POST', '/api/v1/sites', {
      token,
      body: {
        customerId,
        name: 'Kept',
        type: 'wordpress',
        domain: `kept-${crypto.randomUUID().slice(0, 8)}.example.com`,
      },
    })
    const { id } = (await created.json()) as Site
    await agent.answer(await agent.command(id, 'provision'))
    await waitFor(
      'the site to be active',
      async () =>
        ((await (await tp.request('GET', `/api/v1/sites/${id}`, { token })).json()) as Site).status ===
        'active',
    )
    // An automatic round starts (a new address), and staff ask beside it: the node was rebuilt.
    expect(
      (await tp.request('PATCH', `/api/v1/nodes/${nodeId}`, { token, body: { hostname: '127.0.0.3' } }))
        .status,
    ).toBe(200)
    const automatic = await inventoryCommand()
    const asked = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
    const { jobId: staffs } = (await asked.json()) as { jobId: string }
    const own = await waitFor('the staff round’s inventory command', async () => {
      const commands = await agent.poll(undefined, 1)
      return commands.find((command) => command.operation === 'inventory' && command.jobId === staffs) ?? null
    })
    const empty = { sites: [], strays: [], services: {} }
    await agent.answer(own, null, empty)
    await agent.answer(await agent.command(id, 'provision'))
    await jobEnded(staffs)
    const restored = await waitFor('the site put back', async () => {
      const now = (await (await tp.request('GET', `/api/v1/sites/${id}`, { token })).json()) as Site
      return now.drift?.code === 'content_lost' ? now : null
    })
    // The automatic round's answer, asked before the site was put back, comes last.
    await agent.answer(automatic, null, empty)
    await jobEnded(automatic.jobId)
    const after = (await (await tp.request('GET', `/api/v1/sites/${id}`, { token })).json()) as Site
    expect(after.drift).toEqual(restored.drift)
    expect((await node()).inventory).toMatchObject({ held: 0, reapplied: 1 })
  })

  test('node.drifted says what is newly found, not what went away', async () => {
    const drifted = async () =>
      (
        await tp.panel.store.db
          .withTables<{ event_outbox: { kind: string } }>()
          .selectFrom('event_outbox')
          .selectAll()
          .where('kind', '=', 'node.drifted')
          .execute()
      ).length
    const stray = (name: string) => ({ kind: 'server-block' as const, name })
    const said = async (names: string[]) => {
      const before = await drifted()
      await roundAnswered({ sites: [], strays: names.map(stray), services: {} })
      return (await drifted()) - before
    }
    expect(await said(['one', 'two'])).toBe(1)
    expect(await said(['one', 'two'])).toBe(0)
    // The operator removed one: nothing new.
    expect(await said(['one'])).toBe(0)
    expect(await said(['one', 'three'])).toBe(1)
    expect((await node()).inventory?.unknown).toEqual([stray('one'), stray('three')])
  })

  test('an answer of another shape fails the round and changes nothing', async () => {
    const before = (await node()).inventory
    for (const answer of [
      { sites: 'all of them', strays: [], services: {} },
      { sites: [{ id: 42 }], strays: [], services: {} },
      { sites: [], strays: [{ kind: 'anything', name: 'x' }], services: {} },
      { sites: [], strays: [], services: { sftp: { ids: [1] } } },
      null,
    ]) {
      const job = await roundAnswered(answer)
      expect(job.status).toBe('failed')
      expect(job.error?.code).toBe('invalid_inventory')
    }
    expect((await node()).inventory).toEqual(before)
  })
})
