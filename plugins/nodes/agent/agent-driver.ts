// The `agent` node driver: each operation is a command for the node's agent (`npm run agent` on the node), which
// dials the panel for work, so nodes need no inbound port and no certificate of their own.

import type { Node, NodeDriver, SiteSpec } from '../contract.ts'
import type { CommandQueue, CommandRun } from './command-queue.ts'
import type { AgentOperation } from './protocol.ts'

/** The agent driver, on the panel's command queue. */
export function createAgentDriver(queue: CommandQueue): NodeDriver {
  const send =
    (operation: AgentOperation) => (node: Node, site: SiteSpec, signal: AbortSignal, run?: CommandRun) =>
      queue.send(node.id, operation, site, run ?? { jobId: 'none', attempt: 0 }, signal).then(() => {})
  return {
    name: 'agent',
    description:
      'A remote node running the Plinth node agent (`npm run agent`), which dials the panel for its commands.',
    provision: send('provision'),
    update: send('update'),
    suspend: send('suspend'),
    unsuspend: send('unsuspend'),
    delete: send('delete'),
    async report(node, site) {
      const report = await queue.send(
        node.id,
        'report',
        site,
        { jobId: 'report', attempt: 0 },
        AbortSignal.timeout(30_000),
      )
      return report ?? { state: 'absent', diskBytes: 0 }
    },
  }
}
