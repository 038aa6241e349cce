// The SFTP plugin's part of a node's reconciliation: an account of a site the node holds, which the node's SSH server
// does not keep (a rebuilt node), is put back when it logs in with keys only (the panel keeps the public keys). One
// that logs in with a password cannot be: the panel never holds the password nor its hash (the node does); it is
// logged, and a new password (`POST …/sftp-users/{id}/password`) puts it back.

import type { PluginContext } from '../../core/index.ts'
import { type NodeReconciler, nodeDirectory } from '../nodes/contract.ts'
import type { SftpUsersTable } from './migrations.ts'
import { type SftpNodeInfo, sftpServiceName } from './node/protocol.ts'
import { findAccount, keysOf, sftpTables, updateAccount } from './repository.ts'

/** How long one account's put may take on the node. */
const putTimeoutMs = 30_000

/** The reconciler of SFTP accounts. */
export function sftpReconciler(context: PluginContext): NodeReconciler {
  return {
    name: 'sftp',
    async reconcile(job, { node, inventory }) {
      const nodes = context.use(nodeDirectory)
      const held = inventory.services[sftpServiceName]
      // Its SSH server does not run (SFTP_PORT off): nothing to put accounts on.
      if (!held) return { reapplied: 0 }
      const kept = new Set(held.ids)
      const onNode = new Set(inventory.sites.map((site) => site.id))
      const rows: SftpUsersTable[] = await sftpTables(context.db)
        .selectFrom('sftp_users')
        .selectAll()
        .where('nodeId', '=', node.id)
        .orderBy('id')
        .execute()
      let reapplied = 0
      const lost: string[] = []
      for (const row of rows) {
        // Its site is put back first (the next round finds it there).
        if (kept.has(row.id) || !onNode.has(row.siteId)) continue
        if (row.passwordEnabled === 1) {
          lost.push(row.id)
          continue
        }
        job.signal.throwIfAborted()
        // Deleted or changed since the list was read: its deletion removed it, or the next round puts it as it is.
        const current = await findAccount(context.db, row.siteId, row.id)
        if (current?.updatedAt !== row.updatedAt) continue
        const account = {
          id: row.id,
          username: row.username,
          siteId: row.siteId,
          passwordHash: null,
          publicKeys: keysOf(row).map((key) => key.openssh),
          readOnly: row.readOnly === 1,
          expiresAt: row.expiresAt,
        }
        const signal = () => AbortSignal.any([job.signal, AbortSignal.timeout(putTimeoutMs)])
        const where = (await nodes.call(
          node,
          { siteId: row.siteId, service: sftpServiceName, request: { op: 'put', account } },
          signal(),
        )) as SftpNodeInfo
        // Deleted while it was being put (its deletion removed it from the node first, then the row): a deleted
        // account must not log in again, so it is removed once more.
        if (!(await findAccount(context.db, row.siteId, row.id))) {
          await nodes.call(
            node,
            { siteId: row.siteId, service: sftpServiceName, request: { op: 'remove', accountId: row.id } },
            signal(),
          )
          continue
        }
        // A rebuilt node has new host keys: the account says the ones to expect now.
        await job.transaction((trx) =>
          updateAccount(trx, row.id, {
            port: where.port,
            hostKeyFingerprints: JSON.stringify(where.hostKeyFingerprints),
          }),
        )
        reapplied++
      }
      if (lost.length > 0)
        context.log.warn(
          { nodeId: node.id, accounts: lost },
          `node ${node.name} lost SFTP accounts that log in with a password: give each a new password to put it back`,
        )
      return { reapplied }
    },
  }
}
