// The agent's side of the panel over HTTP, with the test playing the agent: commands handed out, sent again when the
// answer to a poll was lost or the agent restarted, never while the agent holds them, and answered once.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel, waitFor } from '../../../hosts/testing/index.ts'
import type { AgentCommand, AgentWork } from './protocol.ts'

let tp: TestPanel
let staff: string
let agentToken: string
let nodeId: string
let customerId: string

const capabilities = { nginx: null, php: null, wordpress: null, unixUsers: false, mode: 'files-only' }
const work = (session: string, holding: string[] = [], waitSeconds = 0) =>
  tp.request('POST', '/api/v1/agent/work', {
    body: { session, version: 'test', capabilities, holding, waitSeconds },
    headers: { authorization: `Bearer ${agentToken}` },
  })
const answer = (id: string, ok = true) =>
  tp.request('POST', `/api/v1/agent/commands/${id}`, {
    body: ok ? { ok: true } : { ok: false, error: { message: 'disk full', code: 'disk_full' } },
    headers: { authorization: `Bearer ${agentToken}` },
  })

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
  tp.panel.start()
  staff = await tp.token()
  const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token: staff })).json()) as {
    items: { id: string }[]
  }
  await tp.request('PATCH', `/api/v1/nodes/${nodes.items[0]?.id}`, {
    token: staff,
    body: { status: 'draining' },
  })
  const node = (await (
    await tp.request('POST', '/api/v1/nodes', {
      token: staff,
      body: { name: 'remote', driver: 'agent', hostname: '10.0.0.9' },
    })
  ).json()) as { id: string; agentToken: string }
  nodeId = node.id
  agentToken = node.agentToken
  customerId = (
    (await (
      await tp.request('POST', '/api/v1/customers', { token: staff, body: { name: 'Acme' } })
    ).json()) as { id: string }
  ).id
})
afterAll(() => tp.panel.close())

/** Creates a site on the agent node; answers it and the first poll's command for it. */
async function siteWithCommand(
  session: string,
): Promise<{ siteId: string; jobId: string; command: AgentCommand }> {
  const response = await tp.request('POST', '/api/v1/sites', {
    token: staff,
    body: {
      customerId,
      name: 'Shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  const site = (await response.json()) as { id: string; jobId: string; nodeId: string }
  expect(site.nodeId).toBe(nodeId)
  const command = await waitFor('the provision command', async () => {
    const polled = (await (await work(session)).json()) as AgentWork
    return polled.commands.find((item) => (item.site as { id: string }).id === site.id) ?? null
  })
  return { siteId: site.id, jobId: site.jobId, command }
}

describe('the agent protocol', () => {
  test('a poll says the agent is connected, with its version and what the node can run', async () => {
    const polled = (await (await work('session-one')).json()) as AgentWork
    expect(polled.nodeId).toBe(nodeId)
    const node = (await (await tp.request('GET', `/api/v1/nodes/${nodeId}`, { token: staff })).json()) as {
      agent: Record<string, unknown>
    }
    expect(node.agent).toMatchObject({ connected: true, version: 'test', capabilities })
  })

  test('a command whose poll answer was lost comes again; one the agent holds does not; its answer finishes the job', async () => {
    const { jobId, command } = await siteWithCommand('session-two')
    expect(command).toMatchObject({ operation: 'provision', jobId, attempt: 1 })
    // The agent never got that answer: it does not hold the command, so the next poll brings it again.
    const again = (await (await work('session-two')).json()) as AgentWork
    expect(again.commands.map((item) => item.id)).toContain(command.id)
    // Now it holds it: not sent again while it works on it.
    const held = (await (await work('session-two', [command.id])).json()) as AgentWork
    expect(held.commands.map((item) => item.id)).not.toContain(command.id)
    expect(((await (await answer(command.id)).json()) as { accepted: boolean }).accepted).toBe(true)
    // A second answer changes nothing.
    expect(((await (await answer(command.id)).json()) as { accepted: boolean }).accepted).toBe(false)
    const job = await waitFor('the job', async () => {
      const read = (await (await tp.request('GET', `/api/v1/jobs/${jobId}`, { token: staff })).json()) as {
        status: string
        attempts: number
      }
      return read.status === 'succeeded' || read.status === 'failed' ? read : null
    })
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1 })
  })

  test('an agent that restarted gets the commands its earlier run never answered', async () => {
    const { command } = await siteWithCommand('session-three')
    const restarted = (await (await work('session-four', [])).json()) as AgentWork
    expect(restarted.commands.map((item) => item.id)).toContain(command.id)
    await answer(command.id)
  })

  test('a failed command fails the attempt, and the job’s next attempt sends it again', async () => {
    const { jobId, command } = await siteWithCommand('session-five')
    await answer(command.id, false)
    const retry = await waitFor('the second attempt’s command', async () => {
      const polled = (await (await work('session-five', [])).json()) as AgentWork
      return polled.commands.find((item) => item.jobId === jobId && item.attempt === 2) ?? null
    })
    expect(retry.id).not.toBe(command.id)
    await answer(retry.id)
  })

  test('the work routes take the agent token, and only a node’s own', async () => {
    const anonymous = await tp.request('POST', '/api/v1/agent/work', {
      body: { session: 'x'.repeat(8), version: 't', capabilities },
    })
    expect(anonymous.status).toBe(401)
    const wrong = await tp.request('POST', '/api/v1/agent/work', {
      body: { session: 'x'.repeat(8), version: 't', capabilities },
      headers: { authorization: `Bearer plinth_node_${'a'.repeat(46)}` },
    })
    expect(wrong.status).toBe(401)
  })
})
