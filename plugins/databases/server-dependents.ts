// What keeps a database server, and the node it runs on: its databases and database users. A node's own server,
// once empty, goes with the node (the node registered it and is its only way in), audited as its deletion.

import type { Dependent, PluginContext } from '../../core/index.ts'
import type { NodeRef } from '../nodes/contract.ts'
import type { DatabaseServerRef } from './contract.ts'
import { deleteServer, heldOn, serversOfNode } from './repository.ts'

/** The databases plugin's own entries among a server's dependents (`databases.serverDependents`). */
export const heldOnServer: readonly Dependent<DatabaseServerRef>[] = [
  { name: 'databases', blocking: async (db, server) => (await heldOn(db, [server.id])).databases },
  { name: 'database-users', blocking: async (db, server) => (await heldOn(db, [server.id])).users },
]

/** The databases plugin's entries among a node's dependents (`nodes.dependents`): what its own server holds. */
export function heldOnNode(context: Pick<PluginContext, 'audit'>): readonly Dependent<NodeRef>[] {
  const held = async (db: Parameters<typeof serversOfNode>[0], node: NodeRef) =>
    heldOn(
      db,
      (await serversOfNode(db, node.id)).map((server) => server.id),
    )
  return [
    {
      name: 'databases',
      blocking: async (db, node) => (await held(db, node)).databases,
      async detach(trx, node) {
        for (const server of await serversOfNode(trx, node.id)) {
          await deleteServer(trx, server.id)
          await context.audit(trx, {
            action: 'database_server.delete',
            subject: { type: 'database_server', id: server.id },
            customerId: null,
            details: { name: server.name, reason: `its node ${node.name} was deleted` },
          })
        }
      },
    },
    { name: 'database-users', blocking: async (db, node) => (await held(db, node)).users },
  ]
}
