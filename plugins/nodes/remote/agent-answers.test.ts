// Answers that cannot cross the protocol: the agent's loop (the real one, over HTTP to a real panel) on a node
// whose service answers more than the panel takes, or an answer the panel refuses as it is. Each command fails once,
// with a code saying why, instead of being refused and sent to the agent again every poll.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { definePlugin } from '../../../core/index.ts'
import { createTestPanel, filesOnlyNode, type TestPanel } from '../../../hosts/testing/index.ts'
import { type Node, type NodeDirectory, nodeDirectory } from '../contract.ts'
import { type AgentNode, type RunningAgent, startAgent } from '../node/agent/agent-loop.ts'
import { agentAnswerLimitBytes } from '../node/agent/protocol.ts'
import type { NodeCapabilities } from '../node/contract.ts'

let tp: TestPanel
let server: ReturnType<typeof Bun.serve>
let agent: RunningAgent
let directory: NodeDirectory
let node: Node
/** How many times the node carried out each request, by its `op`. */
const runs = new Map<string, number>()
const logged: string[] = []

const keeper = definePlugin({
  name: 'directory-keeper',
  version: '1.0.0',
  description: 'Keeps the node directory, to call the agent as a job does.',
  requires: ['nodes'],
  setup(context) {
    directory = context.use(nodeDirectory)
  },
})

/** A node whose `call`s answer by their `op`: too large, refused by the panel's schema, or small. */
const fakeNode: AgentNode = {
  capabilities: async () => filesOnlyNode as NodeCapabilities,
  loadModules: async () => false,
  serve: async () => {},
  async run(command) {
    const op = (command.payload as { request: { op: string } }).request.op
    runs.set(op, (runs.get(op) ?? 0) + 1)
    if (op === 'large') return { output: 'x'.repeat(agentAnswerLimitBytes + 1024) }
    if (op === 'odd') {
      // A refusal whose code the panel's schema refuses (more than 64 characters): refused as it is.
      const refusal = new Error('refused') as Error & { code: string }
      refusal.name = 'NodeRefusal'
      refusal.code = 'odd'.repeat(30)
      throw refusal
    }
    if (op === 'binary') return { output: 'a\u0000b', cut: 'x\ud83d' }
    if (op === 'quoting') {
      // A failure quoting what it read: a NUL, and a pair of surrogates the message's cut at 4000 splits.
      const failure = new Error(`cannot read "a\u0000b" ${'😀'.repeat(2500)}`) as Error & { code: string }
      failure.name = 'NodeFailure'
      failure.code = 'file_unreadable'
      throw failure
    }
    return { output: 'small' }
  },
  traffic: async () => [],
  disk: async () => [],
}

beforeAll(async () => {
  tp = await createTestPanel({ plugins: [keeper] })
  tp.panel.start()
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => tp.panel.handle(request) })
  const staff = await tp.token()
  const created = (await (
    await tp.request('POST', '/api/v1/nodes', {
      token: staff,
      body: { name: 'remote', driver: 'agent', hostname: '10.0.0.9' },
    })
  ).json()) as Node & { agentToken: string }
  agent = startAgent(
    {
      panelUrl: `http://127.0.0.1:${server.port}`,
      token: created.agentToken,
      dataDir: '/nonexistent',
      httpPort: 0,
      httpsPort: 0,
      reportSeconds: 3600,
    },
    fakeNode,
    'test',
    (_fields, message) => logged.push(message),
  )
  await agent.connected
  node = (await directory.find(created.id)) as Node
})

afterAll(async () => {
  await agent.stop()
  server.stop(true)
  await tp.panel.close()
})

const call = (op: string) =>
  directory.call(
    node,
    { siteId: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1', service: 'files', request: { op } },
    AbortSignal.timeout(15_000),
  )

describe('an answer holding text the panel keeps no copy of', () => {
  test('NUL and lone surrogates cross as U+FFFD, in a result and in a failure’s message, rather than being refused', async () => {
    expect(await call('binary')).toEqual({ output: 'a\uFFFDb', cut: 'x\uFFFD' })
    await expect(call('quoting')).rejects.toMatchObject({
      code: 'file_unreadable',
      message: expect.stringContaining('cannot read "a\uFFFDb"'),
    })
    expect(runs.get('binary')).toBe(1)
    expect(logged).not.toContain('answer refused by the panel')
  })
})

describe('an answer that does not fit', () => {
  test('one larger than the panel takes fails the call once, saying how large it was', async () => {
    expect(await call('small')).toEqual({ output: 'small' })
    const started = performance.now()
    await expect(call('large')).rejects.toMatchObject({
      code: 'agent_answer_too_large',
      message: expect.stringMatching(/answer to call \(8\.0 MiB\) is larger than the panel takes/),
    })
    expect(performance.now() - started).toBeLessThan(10_000)
    // Never carried out again: the next polls (every one holds nothing) bring no command back.
    await Bun.sleep(1_500)
    expect(runs.get('large')).toBe(1)
  })

  test('one the panel refuses as it is fails the call once with the panel’s reason', async () => {
    await expect(call('odd')).rejects.toMatchObject({
      code: 'agent_answer_refused',
      message: expect.stringMatching(/panel refused the node's answer to call: .* answered 4\d\d/),
    })
    await Bun.sleep(1_500)
    expect(runs.get('odd')).toBe(1)
    expect(logged).toContain('answer refused by the panel')
  })
})
