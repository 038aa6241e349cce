// An agent stopping says so (`POST /agent/leaving`): the node shows it disconnected at once, not after a minute of
// silence; only the run that polls can say it for itself, and its long poll still waiting does not bring it back.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestPanel, filesOnlyNode, type TestPanel } from '../../../hosts/testing/index.ts'
import type { Node } from '../contract.ts'

let tp: TestPanel
let staff: string
let agentToken: string
let nodeId: string

const asAgent = (path: string, body: unknown) =>
  tp.request('POST', `/api/v1${path}`, { body, headers: { authorization: `Bearer ${agentToken}` } })
const poll = (session: string, waitSeconds = 0) =>
  asAgent('/agent/work', { session, version: 'test', capabilities: filesOnlyNode, waitSeconds })
const agentOf = async () =>
  ((await (await tp.request('GET', `/api/v1/nodes/${nodeId}`, { token: staff })).json()) as Node).agent

beforeAll(async () => {
  tp = await createTestPanel()
  staff = await tp.token()
  const node = (await (
    await tp.request('POST', '/api/v1/nodes', {
      token: staff,
      body: { name: 'remote', driver: 'agent', hostname: '10.0.0.9' },
    })
  ).json()) as { id: string; agentToken: string }
  nodeId = node.id
  agentToken = node.agentToken
})
afterAll(() => tp.panel.close())

describe('an agent that stops', () => {
  test('is shown disconnected at once; a goodbye of another run changes nothing', async () => {
    expect((await poll('run-one-session')).status).toBe(200)
    expect(await agentOf()).toMatchObject({ connected: true })
    // An older run's goodbye (the agent restarted meanwhile) does not disconnect the running one.
    expect((await asAgent('/agent/leaving', { session: 'run-zero-session' })).status).toBe(204)
    expect(await agentOf()).toMatchObject({ connected: true })
    expect((await asAgent('/agent/leaving', { session: 'run-one-session' })).status).toBe(204)
    expect(await agentOf()).toMatchObject({ connected: false, lastSeenAt: null })
    // Started again, it is connected with its first poll.
    expect((await poll('run-two-session')).status).toBe(200)
    expect(await agentOf()).toMatchObject({ connected: true })
  })

  test('its long poll that was still waiting does not bring it back when it ends', async () => {
    expect((await poll('run-three-session')).status).toBe(200)
    const waiting = poll('run-three-session', 1)
    await Bun.sleep(200)
    expect((await asAgent('/agent/leaving', { session: 'run-three-session' })).status).toBe(204)
    expect((await waiting).status).toBe(200)
    expect(await agentOf()).toMatchObject({ connected: false })
  })

  test('a goodbye needs the node’s agent token', async () => {
    const answer = await tp.request('POST', '/api/v1/agent/leaving', {
      body: { session: 'run-four-session' },
      headers: { authorization: 'Bearer plinth_agent_nope' },
    })
    expect(answer.status).toBe(401)
  })
})
