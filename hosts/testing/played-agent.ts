// A remote node's agent played by a test over the agent protocol (`POST /agent/work`, `/agent/commands/{id}`): it
// says what the node can run, takes the commands the panel queues for the node, and answers them as a node would,
// with a refusal, or never. For tests of what the panel does with a node's answers (a site whose provisioning
// fails), where a real node cannot be made to fail on cue.

import { expect } from 'bun:test'
import { waitFor } from '../../core/testing/async.ts'
import type { TestPanel } from '../../core/testing/create-test-panel.ts'
import type { AgentCommand, AgentWork } from '../../plugins/nodes/remote/protocol.ts'

/** What a node says it can run: sites' files only (no WordPress to install, so no database). */
export const filesOnlyNode = {
  nginx: null,
  php: null,
  unixUsers: false,
  mode: 'files-only',
  applications: {},
  services: {},
  missing: [],
  setup: 'npm run agent -- setup',
}

/** A node that serves WordPress, with no database server of its own. */
export const wordpressNode = {
  ...filesOnlyNode,
  nginx: '1.22.1',
  php: '8.2.26',
  unixUsers: true,
  mode: 'serving',
  applications: { wordpress: '6.1.1' },
}

/** What an agent answers a command that failed. */
export interface PlayedFailure {
  readonly code: string
  readonly message: string
  /** Whether repeating it cannot help (the job fails at once). */
  readonly final?: boolean
}

/** The agent of the node whose agent token is `agentToken`, played on `tp`. */
export function playAgent(tp: TestPanel, agentToken: string) {
  const headers = { authorization: `Bearer ${agentToken}` }
  let capabilities: object = filesOnlyNode
  const agent = {
    /**
     * One poll, saying the node runs `now` from here on; answers the commands it hands out (waiting up to
     * `waitSeconds` for one, as the agent does).
     */
    async poll(now: object = capabilities, waitSeconds = 0): Promise<AgentCommand[]> {
      capabilities = now
      const response = await tp.request('POST', '/api/v1/agent/work', {
        body: { session: 'played-agent', version: 'test', capabilities, holding: [], waitSeconds },
        headers,
      })
      expect(response.status).toBe(200)
      return ((await response.json()) as AgentWork).commands
    },
    /** The command of `operation` for `subject` (of the job's attempt `attempt`, when given), once it comes. */
    command(subject: string, operation: string, attempt?: number, timeoutMs = 10_000) {
      return waitFor(
        `the ${operation} command for ${subject}`,
        async () =>
          // Waiting a second for one, as the agent does: fewer requests than the panel's rate limit allows.
          (await agent.poll(capabilities, 1)).find(
            (command) =>
              command.subject === subject &&
              command.operation === operation &&
              (attempt === undefined || command.attempt === attempt),
          ) ?? null,
        timeoutMs,
      )
    },
    /** Answers `command`: done (with what the operation resolved with, `result`), or failed with `failure`. */
    async answer(command: AgentCommand, failure?: PlayedFailure | null, result?: unknown): Promise<void> {
      const response = await tp.request('POST', `/api/v1/agent/commands/${command.id}`, {
        body: failure
          ? { ok: false, error: failure }
          : { ok: true, ...(result === undefined ? {} : { result }) },
        headers,
      })
      expect(response.status).toBe(200)
    },
  }
  return agent
}

/**
 * A remote node named `name` on `tp` (staff `token`) whose agent the test plays, every other node drained so new
 * sites go there. Its `hostname` is 127.0.0.1 by default: the test plays it on this machine, whose MariaDB at
 * 127.0.0.1 its sites reach; another address makes it a node on another machine (docs/databases.md).
 */
export async function nodeWithPlayedAgent(
  tp: TestPanel,
  token: string,
  name = 'edge',
  hostname = '127.0.0.1',
) {
  const call = (method: string, path: string, body?: unknown) =>
    tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
  const nodes = (await (await call('GET', '/nodes')).json()) as { items: { id: string }[] }
  for (const node of nodes.items) await call('PATCH', `/nodes/${node.id}`, { status: 'draining' })
  const created = await call('POST', '/nodes', { name, driver: 'agent', hostname })
  expect(created.status).toBe(201)
  const node = (await created.json()) as { id: string; name: string; agentToken: string }
  const agent = playAgent(tp, node.agentToken)
  await agent.poll(filesOnlyNode)
  return { nodeId: node.id, node, agent }
}
