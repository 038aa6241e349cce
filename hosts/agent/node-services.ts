// The services the node agent offers its sites: the same a panel's local node offers (each plugin adds its own to
// `nodes.services` there). A plugin with a node service adds it here too, so remote nodes offer it.

import type { NodeService } from '../../plugins/nodes/contract.ts'

/** The node services of the standard plugins. */
export function agentNodeServices(): readonly NodeService[] {
  return []
}
