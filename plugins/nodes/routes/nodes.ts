// Node operations for platform staff: list, read, create (with its agent token), change, rotate the agent token.

import {
  type Db,
  defineRoute,
  detachDependents,
  enumOf,
  FieldErrors,
  fieldProblem,
  newId,
  nowIso,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  refuseWhileBlocked,
  resourceRoutes,
  t,
  unchanged,
  visibleTable,
} from '../../../core/index.ts'
import {
  Node,
  NodeSiteDefaults,
  nodeDependents,
  nodeDrivers,
  nodeScopes,
  nodeStatuses,
  nodeWatchers,
} from '../contract.ts'
import { normaliseHostname } from '../hostname.ts'
import { type NodesTable, type NodesTables, nodeSiteDefaults } from '../migrations.ts'
import { nodesProblems } from '../problems.ts'
import { startReconcile } from '../reconcile.ts'
import { agentTokens } from '../remote/agent-token.ts'
import { deleteNode, insertNode, nameTaken, toNode as nodeOf, updateNode } from '../repository.ts'

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
const statusSchema = (description: string) => enumOf(nodeStatuses, { description })
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
  {
    name: t.Optional(NodeName),
    hostname: t.Optional(Hostname),
    status: t.Optional(Status),
    siteDefaults: t.Optional(
      t.Partial(NodeSiteDefaults, {
        description:
          'The limits the node gives a site where neither the site nor its plan sets one; omitted members stay as they are, null lifts one. Applied to the node’s sites by `site.update` jobs.',
      }),
    ),
  },
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

/** The columns a change of `siteDefaults` moves: only the members given and different. */
function siteDefaultChanges(row: NodesTable, given: Partial<NodeSiteDefaults>): Partial<NodesTable> {
  const changes: Partial<NodesTable> = {}
  if (given.cpuPercent !== undefined && given.cpuPercent !== row.site_cpu_percent)
    changes.site_cpu_percent = given.cpuPercent
  if (given.memoryMB !== undefined && given.memoryMB !== row.site_memory_mb)
    changes.site_memory_mb = given.memoryMB
  if (given.processes !== undefined && given.processes !== row.site_processes)
    changes.site_processes = given.processes
  return changes
}

/** Nodes are the platform's own: only platform staff reach them. */
const nodes = visibleTable((db: Db) => db.withTables<NodesTables>(), 'nodes', 'platform')

/**
 * The node administration routes. `runsLocal`: whether the panel runs the nodes of the `local` driver itself (they
 * cannot be deleted while it does); `localServes`: whether that node serves its sites (readiness.ts).
 */
export function nodeRoutes(
  context: PluginContext,
  runsLocal: boolean,
  localServes: boolean,
): RouteDefinition[] {
  const toNode = (row: NodesTable) => nodeOf(row, localServes)
  const drivers = context.extensionPoint(nodeDrivers)
  const dependents = context.extensionPoint(nodeDependents)

  /** The driver and host name of a new node, each refused at its field; checked before the transaction. */
  function checkedNode(body: { driver: string; hostname: string }) {
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
    return { driver: driver.name, hostname }
  }

  return [
    ...resourceRoutes({
      item: Node,
      name: 'node',
      path: '/nodes',
      key: { id: 'nod' },
      scopes: { read: nodeScopes.read, manage: nodeScopes.manage },
      staff: true,
      table: { rows: nodes, toItem: toNode },
      list: {
        summary: 'List nodes',
        description: 'Platform staff only. Every node, oldest first; `status` narrows the list.',
        query: ListNodesQuery,
        filters: { status: 'status' },
      },
      read: { summary: 'Read a node' },
      create: {
        summary: 'Add a node',
        description:
          'Platform staff only. Registers a server that sites can be placed on, run by one of the installed node drivers. The answer carries the node’s agent token, shown this once.',
        body: CreateNodeBody,
        showsSecret: true,
        responses: {
          201: {
            description: 'The new node, with its agent token (shown once).',
            schema: NodeWithAgentToken,
            headers: { Location: 'URL of the node.' },
          },
        },
        problems: [
          nodesProblems.unknown_driver,
          nodesProblems.invalid_hostname,
          nodesProblems.node_name_taken,
        ],
        record: {
          event: null,
          details: ({ name, driver, hostname, status }) => ({ name, driver, hostname, status }),
        },
        prepare: ({ body }) => ({ ...checkedNode(body), agentToken: agentTokens.generate() }),
        async handler({ trx, body, prepared: { driver, hostname, agentToken } }) {
          const now = nowIso()
          const row: NodesTable = {
            id: newId('nod'),
            name: body.name,
            driver,
            hostname,
            status: body.status ?? 'active',
            agent_token_hash: agentTokens.hash(agentToken),
            agent_seen_at: null,
            agent_session: null,
            agent_version: null,
            agent_capabilities: null,
            inventory: null,
            reconcile_job_id: null,
            reconcile_staff_job_id: null,
            ...nodeSiteDefaults,
            created_at: now,
            updated_at: now,
          }
          if (await nameTaken(trx, row.name)) throw fieldProblem(nodesProblems.node_name_taken, 'body.name')
          await insertNode(trx, row)
          return { ...toNode(row), agentToken }
        },
      },
      update: {
        summary: 'Change a node',
        description:
          'Platform staff only. Renames a node, changes its host name, its `siteDefaults` (the limits its sites take where neither the site nor its plan sets one; the sites that take them get a `site.update` job each), or its status: `draining` and `disabled` nodes receive no new sites; a `disabled` node’s reports are refused. A new host name (the node moved) starts its reconciliation, which grants its sites’ logins on database servers staff added to the new address (docs/databases.md, “Sites on other machines”); a node whose agent is away gets it when the agent connects.',
        body: UpdateNodeBody,
        problems: [nodesProblems.invalid_hostname, nodesProblems.node_name_taken],
        record: { event: null },
        prepare({ body }) {
          const hostname = body.hostname === undefined ? undefined : normaliseHostname(body.hostname)
          if (hostname === null) throw fieldProblem(nodesProblems.invalid_hostname, 'body.hostname')
          return hostname
        },
        async handler({ trx, row, body, prepared: hostname }) {
          const changes: Partial<NodesTable> = {}
          if (body.name !== undefined && body.name !== row.name) {
            if (await nameTaken(trx, body.name, row.id))
              throw fieldProblem(nodesProblems.node_name_taken, 'body.name')
            changes.name = body.name
          }
          if (hostname !== undefined && hostname !== row.hostname) changes.hostname = hostname
          if (body.status !== undefined && body.status !== row.status) changes.status = body.status
          const defaults = siteDefaultChanges(row, body.siteDefaults ?? {})
          Object.assign(changes, defaults)
          if (Object.keys(changes).length === 0) return unchanged(toNode(row))
          const updatedAt = nowIso()
          await updateNode(trx, row.id, { ...changes, updated_at: updatedAt })
          // A node at a new address: its sites' logins on database servers staff added are granted to it now.
          if (changes.hostname !== undefined) await startReconcile(trx, context, row.id)
          const node = toNode({ ...row, ...changes, updated_at: updatedAt })
          // The node's sites that take a default get it through their own jobs, started in this transaction.
          if (Object.keys(defaults).length > 0)
            for (const watcher of context.extensionPoint(nodeWatchers).list())
              await watcher.siteDefaultsChanged?.(trx, node)
          // The defaults by the API's names, as the request gave them, not the columns that hold them.
          const { site_cpu_percent, site_memory_mb, site_processes, ...rest } = changes
          const siteDefaults = {
            ...(site_cpu_percent !== undefined ? { cpuPercent: site_cpu_percent } : {}),
            ...(site_memory_mb !== undefined ? { memoryMB: site_memory_mb } : {}),
            ...(site_processes !== undefined ? { processes: site_processes } : {}),
          }
          return recorded(node, {
            details: { ...rest, ...(Object.keys(siteDefaults).length > 0 ? { siteDefaults } : {}) },
          })
        },
      },
      remove: {
        summary: 'Delete a node',
        description:
          'Platform staff only. Only once nothing lives on it: refused with 409 `node_in_use` (naming the `blockers`) while it holds sites in any state, or databases or database users on its own database server. Its own database server, once empty, goes with it (the node registered it; nothing else can reach it). The node the panel runs itself (the `local` driver) is refused with 409 `local_node`. Its agent token stops working at once. Audited as `node.delete`; the node then answers 404.',
        problems: [nodesProblems.node_in_use, nodesProblems.local_node],
        record: { event: null },
        async handler({ trx, row }) {
          if (runsLocal && row.driver === 'local') throw new Problem(nodesProblems.local_node)
          const node = { id: row.id, name: row.name }
          await refuseWhileBlocked(dependents, trx, node, nodesProblems.node_in_use, `The node ${row.name}`)
          await detachDependents(dependents, trx, node)
          await deleteNode(trx, row.id)
          return recorded(toNode(row), {
            details: { name: row.name, driver: row.driver, hostname: row.hostname },
          })
        },
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
      change: { action: 'node.rotateAgentToken' },
      prepare: () => agentTokens.generate(),
      async handler({ trx, params, view, prepared: agentToken }) {
        const row = await nodes.find(trx, view, params.id)
        const changes = { agent_token_hash: agentTokens.hash(agentToken), updated_at: nowIso() }
        await updateNode(trx, row.id, changes)
        return { ...toNode({ ...row, ...changes }), agentToken }
      },
    }),
  ]
}
