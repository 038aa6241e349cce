// The node agent's side of the panel: it asks for work (a long poll that also says the agent is connected, its
// version and what the node can run) and answers each command. Both authenticated by the node's agent token.

import {
  defineRoute,
  nowIso,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { recordReport } from '../capabilities-record.ts'
import type { NodeModuleEntry } from '../contract.ts'
import type { NodesTables } from '../migrations.ts'
import { agentAnswerLimitBytes } from '../node/agent/protocol.ts'
import { nodesProblems } from '../problems.ts'
import { agentCredential } from '../remote/agent-credential.ts'
import { agentModulesOf } from '../remote/agent-modules.ts'
import type { CommandQueue } from '../remote/command-queue.ts'
import { AgentHello, AgentLeaving, AgentResult, AgentWork } from '../remote/protocol.ts'

const AnswerReceipt = t.Object(
  {
    accepted: t.Boolean({
      description: 'False when the command was no longer waited for (abandoned): nothing changed.',
    }),
  },
  { $id: 'AgentAnswerReceipt' },
)

/** The agent routes. */
export function agentRoutes(
  context: PluginContext,
  queue: CommandQueue,
  modules: () => readonly NodeModuleEntry[],
): RouteDefinition[] {
  const credential = agentCredential(context)
  // Made once the plugins are set up: every module is declared by then.
  const agentModules = agentModulesOf(modules(), context.log)
  return [
    defineRoute({
      method: 'POST',
      path: '/agent/work',
      operationId: 'takeAgentWork',
      summary: 'Ask for work (node agents)',
      description:
        'Called by a node agent, not by people, with its agent token: says it is connected (its version, what the node can run), and answers the node modules of the installation (which the agent loads from its own install) and the commands waiting for the node, waiting up to `waitSeconds` (25) for one to come. Commands sent to an earlier run of the agent that never answered come again (the agent restarted): they are idempotent.',
      public: true,
      credential,
      // Presence, not a change anyone audits: an agent asks every few seconds. Charged to the node's own allowance
      // once its token is checked (to the address when it fails), never to the address its sites share.
      audited: false,
      body: AgentHello,
      responses: { 200: { description: 'The node and its commands (maybe none).', schema: AgentWork } },
      problems: [nodesProblems.invalid_agent_token, nodesProblems.node_disabled],
      async handler({ principal: node, body }) {
        if (node.status === 'disabled') throw new Problem(nodesProblems.node_disabled)
        await recordReport(context, node, body, body.capabilities)
        const commands = await queue.take(
          node.id,
          body.session,
          (body.waitSeconds ?? 25) * 1000,
          body.holding ?? [],
        )
        // The poll is over: it was connected until now (unless its run said meanwhile that it stops).
        await context.db
          .withTables<NodesTables>()
          .updateTable('nodes')
          .set({ agent_seen_at: nowIso() })
          .where('id', '=', node.id)
          .where('agent_session', '=', body.session)
          .execute()
        return { nodeId: node.id, modules: agentModules, commands }
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/agent/leaving',
      operationId: 'agentLeaving',
      summary: 'Say the agent stops (node agents)',
      description:
        'Called by a node agent with its agent token as it stops (SIGTERM, SIGINT): the node shows `agent.connected: false` at once, rather than after a minute without a poll. Only the run that is polling (its `session`) can say so; a newer run of the agent is not disconnected by an older one’s goodbye.',
      public: true,
      credential,
      audited: false,
      body: AgentLeaving,
      responses: { 204: { description: 'The node shows its agent disconnected.' } },
      problems: [nodesProblems.invalid_agent_token],
      async handler({ principal: node, body }) {
        await context.db
          .withTables<NodesTables>()
          .updateTable('nodes')
          .set({ agent_seen_at: null, agent_session: null })
          .where('id', '=', node.id)
          .where('agent_session', '=', body.session)
          .execute()
        return Reply.noContent()
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/agent/commands/:id',
      operationId: 'answerAgentCommand',
      summary: 'Answer a command (node agents)',
      description:
        'Called by a node agent with its agent token: the outcome of a command it was given. A command that is no longer waited for (the job gave the attempt up) is answered `accepted: false` and changes nothing.',
      public: true,
      credential,
      audited: false,
      params: { id: 'cmd' },
      body: AgentResult,
      // A service's answer may carry a part of a site's file (up to 4 MiB, base64).
      bodyLimitBytes: agentAnswerLimitBytes,
      responses: { 200: { description: 'Whether the answer was taken.', schema: AnswerReceipt } },
      problems: [nodesProblems.invalid_agent_token],
      async handler({ principal: node, params, body }) {
        return { accepted: await queue.answer(node.id, params.id, body) }
      },
    }),
  ]
}
