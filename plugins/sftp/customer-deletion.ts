// A customer's SFTP accounts go with it: the plugin's dependent of `customers.dependents`, run in the customer's
// deletion job. Each account is taken off its node where the node answers (ending its live sessions at once) and
// forgotten; a node that does not answer loses it with the site's home when the same job deletes the site.

import type { Dependent, PluginContext } from '../../core/index.ts'
import type { CustomerRef } from '../customers/contract.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import { sftpServiceName } from './contract.ts'
import { deleteAccount, sftpTables, toSftpUser } from './repository.ts'

/** The SFTP accounts' dependent of customers. */
export function sftpCustomerDependent(context: PluginContext): Dependent<CustomerRef> {
  const nodes = context.use(nodeDirectory)
  return {
    name: 'sftp',
    async remove(run, customer) {
      const rows = await sftpTables(context.db)
        .selectFrom('sftp_users')
        .selectAll()
        .where('customerId', '=', customer.id)
        .execute()
      for (const row of rows) {
        run.signal.throwIfAborted()
        const node = await nodes.find(row.nodeId)
        if (node) {
          const signal = AbortSignal.any([run.signal, AbortSignal.timeout(10_000)])
          const request = { op: 'remove', accountId: row.id }
          await nodes
            .call(node, { siteId: row.siteId, service: sftpServiceName, request }, signal)
            .catch(() => {})
        }
        await run.transaction(async (trx) => {
          await deleteAccount(trx, row.id)
          await run.audit(trx, {
            action: 'sftp_user.delete',
            subject: { type: 'sftp_user', id: row.id },
            customerId: row.customerId,
            details: { username: row.username, siteId: row.siteId, reason: 'customer deleted' },
          })
          await context.emit(trx, {
            kind: 'sftp_user.deleted',
            customerId: row.customerId,
            data: toSftpUser(row),
          })
        })
      }
    },
  }
}
