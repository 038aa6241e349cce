// Node operations for platform staff: list, read, create (with its agent token), change, rotate the agent token.

import {
  defineRoute,
  FieldErrors,
  fieldProblem,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Reply,
  type RouteDefinition,
  t,
} from '../../../core/index.ts'
import { Node, nodeDrivers, nodeScopes, nodeStatuses } from '../contract.ts'
import { normaliseHostname } from '../hostname.ts'
import type { NodesTable } from '../migrations.ts'
import { nodesProblems } from '../problems.ts'
import { agentTokens } from '../remote/agent-token.ts'
import { findNodeRow, insertNode, nameTaken, nodesQuery, toNode, updateNode } from '../repository.ts'

const NodeName = t.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$',
  description:
    'Name of the node, unique whatever its case: letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit.',
})
const Hostname = t.String({
  minLength: 1,
  maxLength: 255,
  description: 'Host name or IP address of the server (`web-1.example.net`, `10.0.0.5`, `::1`).',
})
const statusSchema = (description: string) =>
  t.Union(
    nodeStatuses.map((status) => t.Literal(status)),
    { description },
  )
const Status = statusSchema(
  '`active` nodes receive new sites; `draining` keeps its sites; `disabled` is out of use.',
)

const CreateNodeBody = t.Object(
  {
    name: NodeName,
    driver: t.String({
      minLength: 1,
      maxLength: 32,
      description: 'The node driver that runs it, one of the installed drivers (`local`).',
    }),
    hostname: Hostname,
    status: t.Optional(
      statusSchema('Default `active`; `draining` and `disabled` nodes receive no new sites.'),
    ),
  },
  { $id: 'CreateNodeBody' },
)

const UpdateNodeBody = t.Object(
  { name: t.Optional(NodeName), hostname: t.Optional(Hostname), status: t.Optional(Status) },
  {
    $id: 'UpdateNodeBody',
    description: 'Fields to change; omitted ones stay as they are. The driver cannot change.',
  },
)

/** A node with its agent token, answered once when the node is created or its token rotated. */
const NodeWithAgentToken = t.Object(
  {
    ...Node.properties,
    agentToken: t.String({
      description:
        'The node’s agent token, `plinth_node_…`: shown this once, only its hash is kept. The node sends it to report.',
    }),
  },
  { $id: 'NodeWithAgentToken' },
)

const ListNodesQuery = t.Object({ status: t.Optional(statusSchema('Only nodes in this state.')) })

/** The node administration routes. */
export function nodeRoutes(context: PluginContext): RouteDefinition[] {
  const { db, transaction } = context
  const drivers = context.extensionPoint(nodeDrivers)

  return [
    defineRoute({
      method: 'GET',
      path: '/nodes',
      operationId: 'listNodes',
      summary: 'List nodes',
      description: 'Platform staff only. Every node, oldest first; `status` narrows the list.',
      scope: nodeScopes.read,
      staff: true,
      query: ListNodesQuery,
      list: { item: Node, toItem: toNode },
      handler: ({ query }) =>
        query.status === undefined ? nodesQuery(db) : nodesQuery(db).where('status', '=', query.status),
    }),
    defineRoute({
      method: 'GET',
      path: '/nodes/:id',
      operationId: 'getNode',
      summary: 'Read a node',
      scope: nodeScopes.read,
      staff: true,
      params: { id: 'nod' },
      responses: { 200: { description: 'The node.', schema: Node } },
      handler: async ({ params }) => toNode(orNotFound(await findNodeRow(db, params.id))),
    }),
    defineRoute({
      method: 'POST',
      path: '/nodes',
      operationId: 'createNode',
      idempotent: true,
      showsSecret: true,
      summary: 'Add a node',
      description:
        'Platform staff only. Registers a server that sites can be placed on, run by one of the installed node drivers. The answer carries the node’s agent token, shown this once.',
      scope: nodeScopes.manage,
      staff: true,
      body: CreateNodeBody,
      responses: {
        201: {
          description: 'The new node, with its agent token (shown once).',
          schema: NodeWithAgentToken,
          headers: { Location: 'URL of the node.' },
        },
      },
      problems: [nodesProblems.unknown_driver, nodesProblems.invalid_hostname, nodesProblems.node_name_taken],
      async handler({ body, audit }) {
        const refusals = new FieldErrors()
        const driver = drivers.get(body.driver)
        if (!driver) {
          const known = drivers
            .list()
            .map((item) => item.name)
            .join(', ')
          refusals.add(nodesProblems.unknown_driver, 'body.driver', `must be one of: ${known || '(none)'}`)
        }
        const hostname = normaliseHostname(body.hostname)
        if (!hostname) refusals.add(nodesProblems.invalid_hostname, 'body.hostname')
        if (!driver || !hostname) throw refusals.toProblem()
        const agentToken = agentTokens.generate()
        const now = nowIso()
        const row: NodesTable = {
          id: newId('nod'),
          name: body.name,
          driver: driver.name,
          hostname,
          status: body.status ?? 'active',
          agent_token_hash: agentTokens.hash(agentToken),
          agent_seen_at: null,
          agent_session: null,
          agent_version: null,
          agent_capabilities: null,
          created_at: now,
          updated_at: now,
        }
        await transaction(async (trx) => {
          if (await nameTaken(trx, row.name)) throw fieldProblem(nodesProblems.node_name_taken, 'body.name')
          await insertNode(trx, row)
          await audit(trx, {
            action: 'node.create',
            subject: { type: 'node', id: row.id },
            customerId: null,
            details: { name: row.name, driver: row.driver, hostname, status: row.status },
          })
        })
        return Reply.created({ ...toNode(row), agentToken }, `/nodes/${row.id}`)
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/nodes/:id',
      operationId: 'updateNode',
      summary: 'Change a node',
      description:
        'Platform staff only. Renames a node, changes its host name, or its status: `draining` and `disabled` nodes receive no new sites; a `disabled` node’s reports are refused.',
      scope: nodeScopes.manage,
      staff: true,
      params: { id: 'nod' },
      body: UpdateNodeBody,
      responses: { 200: { description: 'The node after the change.', schema: Node } },
      problems: [nodesProblems.invalid_hostname, nodesProblems.node_name_taken],
      async handler({ params, body, audit }) {
        const hostname = body.hostname === undefined ? undefined : normaliseHostname(body.hostname)
        if (hostname === null) throw fieldProblem(nodesProblems.invalid_hostname, 'body.hostname')
        return transaction(async (trx) => {
          const row = orNotFound(await findNodeRow(trx, params.id))
          const changes: Partial<NodesTable> = {}
          if (body.name !== undefined && body.name !== row.name) {
            if (await nameTaken(trx, body.name, row.id))
              throw fieldProblem(nodesProblems.node_name_taken, 'body.name')
            changes.name = body.name
          }
          if (hostname !== undefined && hostname !== row.hostname) changes.hostname = hostname
          if (body.status !== undefined && body.status !== row.status) changes.status = body.status
          if (Object.keys(changes).length === 0) return toNode(row)
          changes.updated_at = nowIso()
          await updateNode(trx, row.id, changes)
          const { updated_at: _stamp, ...changed } = changes
          await audit(trx, {
            action: 'node.update',
            subject: { type: 'node', id: row.id },
            customerId: null,
            details: changed,
          })
          return toNode({ ...row, ...changes })
        })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/nodes/:id/rotate-agent-token',
      operationId: 'rotateNodeAgentToken',
      summary: 'Replace a node’s agent token',
      description:
        'Platform staff only. Issues a new agent token, shown this once; the old one stops working at once. Give the new token to the node’s agent.',
      scope: nodeScopes.manage,
      staff: true,
      params: { id: 'nod' },
      showsSecret: true,
      responses: {
        200: { description: 'The node, with its new agent token (shown once).', schema: NodeWithAgentToken },
      },
      async handler({ params, audit }) {
        const agentToken = agentTokens.generate()
        const node = await transaction(async (trx) => {
          const row = orNotFound(await findNodeRow(trx, params.id))
          const changes = { agent_token_hash: agentTokens.hash(agentToken), updated_at: nowIso() }
          await updateNode(trx, row.id, changes)
          await audit(trx, {
            action: 'node.rotateAgentToken',
            subject: { type: 'node', id: row.id },
            customerId: null,
          })
          return toNode({ ...row, ...changes })
        })
        return { ...node, agentToken }
      },
    }),
  ]
}
