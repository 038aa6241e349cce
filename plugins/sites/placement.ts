// Where a new site goes: a node that takes new sites (`active`), can serve one now (its agent connected, its nginx
// and PHP-FPM running: the node's `ready`) and lacks nothing the site's type needs; the emptiest of them, or the one
// staff chose. Anything else is refused at once, with the reason and a code, rather than left to a job that fails
// or, worse, to a placeholder site. Only platform staff are told which nodes and why (node-insight.ts).

import { fieldProblem, Problem, type Trx } from '../../core/index.ts'
import type { Node, NodeDirectory } from '../nodes/contract.ts'
import type { SiteType } from './contract.ts'
import { sitesProblems } from './problems.ts'
import { siteCountsByNode } from './repository.ts'

/** A node's reasons for not being ready, in one line. */
const whyNotReady = (node: Node) =>
  `${node.name}: ${node.notReady.map((reason) => reason.message).join('; ')}`

/** What `type` needs that `node` lacks, read in `trx`. */
const lacksOn = async (trx: Trx, type: SiteType, node: Node) => (await type.lacksOn?.(trx, node)) ?? []

/**
 * 422 `site_type_unavailable` at `body.type`, naming what each node lacks and the command that installs it to
 * platform staff (`insight`); anyone else is told no more than the code says.
 */
function typeUnavailable(
  lacking: readonly { node: Node; lacks: readonly string[] }[],
  notReady: readonly Node[],
  insight: boolean,
) {
  if (!insight)
    return fieldProblem(
      sitesProblems.site_type_unavailable,
      'body.type',
      'cannot be served now by any server that takes new sites: ask your provider',
    )
  const setup = lacking[0]?.node.agent.capabilities?.setup
  const unready = notReady.length > 0 ? `; not ready: ${notReady.map(whyNotReady).join('; ')}` : ''
  return fieldProblem(
    sitesProblems.site_type_unavailable,
    'body.type',
    `cannot be served by any node that takes new sites: ${lacking.map(({ node, lacks }) => `${node.name} lacks ${lacks.join(', ')}`).join('; ')}${setup ? ` (\`${setup}\` installs what a node lacks)` : ''}${unready}`,
  )
}

/** The node staff chose (`body.nodeId`), refused unless it takes new sites, is ready, and can serve `type`. */
async function chosenNode(trx: Trx, nodes: NodeDirectory, type: SiteType, nodeId: string): Promise<string> {
  const node = await nodes.find(nodeId, trx)
  if (!node) throw fieldProblem(sitesProblems.unknown_node, 'body.nodeId')
  const refuse = (ref: typeof sitesProblems.node_not_ready, detail: string, extensions = {}) =>
    new Problem(ref, {
      detail,
      errors: [{ location: 'body.nodeId', message: detail, code: ref.code }],
      extensions: { nodeId: node.id, ...extensions },
    })
  if (node.status !== 'active')
    throw refuse(sitesProblems.node_not_accepting, `The node ${node.name} is ${node.status}.`)
  if (!node.ready)
    throw refuse(sitesProblems.node_not_ready, `The node ${whyNotReady(node)}.`, { notReady: node.notReady })
  const lacks = await lacksOn(trx, type, node)
  if (lacks.length > 0) throw typeUnavailable([{ node, lacks }], [], true)
  return node.id
}

/**
 * The node a new site of `type` goes to: `nodeId` when staff chose one, else the ready active node with the fewest
 * sites (oldest first on a tie) among those that can serve `type`. Refusals: 409 `no_node_available` (no active
 * node), 409 `no_node_ready` (none ready, each named with why), 422 `site_type_unavailable` at `body.type` (the
 * ready ones lack something), and for a chosen node 422 `unknown_node`, 409 `node_not_accepting`, `node_not_ready`.
 * `insight`: whether the caller may learn the nodes' names and reasons (platform staff); `nodeId` is staff's alone.
 */
export async function placeSite(
  trx: Trx,
  nodes: NodeDirectory,
  type: SiteType,
  { nodeId, insight }: { nodeId?: string | undefined; insight: boolean },
): Promise<string> {
  if (nodeId !== undefined) return chosenNode(trx, nodes, type, nodeId)
  const active = await nodes.activeNodes(trx)
  if (active.length === 0) throw new Problem(sitesProblems.no_node_available)
  const ready = active.filter((node) => node.ready)
  const notReady = active.filter((node) => !node.ready)
  if (ready.length === 0 && !insight) throw new Problem(sitesProblems.no_node_ready)
  if (ready.length === 0)
    throw new Problem(sitesProblems.no_node_ready, {
      detail: `No node that takes new sites can serve one now: ${notReady.map(whyNotReady).join('; ')}.`,
      extensions: {
        nodes: notReady.map((node) => ({ id: node.id, name: node.name, notReady: node.notReady })),
      },
    })
  const lacking = await Promise.all(
    ready.map(async (node) => ({ node, lacks: await lacksOn(trx, type, node) })),
  )
  const able = lacking.filter(({ lacks }) => lacks.length === 0).map(({ node }) => node)
  if (able.length === 0) throw typeUnavailable(lacking, notReady, insight)
  const counts = await siteCountsByNode(
    trx,
    able.map((node) => node.id),
  )
  const chosen = able.toSorted((a, b) => (counts.get(a.id) ?? 0) - (counts.get(b.id) ?? 0))[0]
  if (!chosen) throw new Problem(sitesProblems.no_node_available)
  return chosen.id
}
