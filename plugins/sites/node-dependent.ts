// Sites keep their node: a node that holds any site (whatever its state) is not deleted; once it holds none, the
// count the placement keeps of it goes with it.

import type { Dependent } from '../../core/index.ts'
import type { NodeRef } from '../nodes/contract.ts'
import { forgetNodeCount, siteCountOnNode } from './repository.ts'

/** The sites plugin's entry among a node's dependents (`nodes.dependents`). */
export const sitesOnNode: Dependent<NodeRef> = {
  name: 'sites',
  blocking: (db, node) => siteCountOnNode(db, node.id),
  detach: (trx, node) => forgetNodeCount(trx, node.id),
}
