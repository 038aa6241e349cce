// A node agent's credential: its agent token alone says which node it is (found by the token's hash), so an agent
// is configured with the panel's URL and its token, nothing else.

import { kernelProblems, type PluginContext, Problem, type RouteCredential } from '../../../core/index.ts'
import type { NodesTable, NodesTables } from '../migrations.ts'
import { nodesProblems } from '../problems.ts'
import { agentTokens } from './agent-token.ts'

const realm = 'Bearer realm="plinth-node"'

/** The 401 of a token that is no node's, or not this node's: the same answer for every reason. */
export function invalidAgentToken(): Problem {
  return new Problem(nodesProblems.invalid_agent_token, {
    headers: { 'www-authenticate': `${realm}, error="invalid_token"` },
  })
}

/** The security scheme of node agents' routes, as the OpenAPI document names it. */
export const agentTokenScheme = {
  name: 'nodeAgentToken',
  scheme: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A node’s agent token (`plinth_node_…`), shown once when the node is created or its token rotated; valid only for that node’s own reports and commands.',
  },
} as const

/**
 * The node whose agent token the request carries; 401 otherwise, alike for every reason. Its requests count against
 * the node's own allowance, not its address's.
 */
export function agentCredential(context: Pick<PluginContext, 'db'>): RouteCredential<NodesTable> {
  return {
    ...agentTokenScheme,
    async authenticate(request) {
      const header = request.headers.get('authorization')
      if (header === null) {
        throw new Problem(kernelProblems.unauthenticated, {
          detail: 'A node agent sends its agent token: Authorization: Bearer plinth_node_….',
          headers: { 'www-authenticate': realm },
        })
      }
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? ''
      const row = agentTokens.isWellFormed(token)
        ? await context.db
            .withTables<NodesTables>()
            .selectFrom('nodes')
            .selectAll()
            .where('agent_token_hash', '=', agentTokens.hash(token))
            .executeTakeFirst()
        : undefined
      if (!row?.agent_token_hash || !agentTokens.matches(token, row.agent_token_hash))
        throw invalidAgentToken()
      return row
    },
    // The node's own allowance: its sites' code calls out by the node's address, and a flood from it must never
    // get the agent 429s and the node shown disconnected.
    rateKey: (node) => `node:${node.id}`,
  }
}
