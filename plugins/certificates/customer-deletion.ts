// A customer's certificates go with it: the plugin's dependent of `customers.dependents`, run in the customer's
// deletion job. Its sites' attachments are forgotten (each site's node drops its files with the site, in the same
// job) and its certificates deleted with their sealed keys, as `DELETE /certificates/{id}` does.

import type { Dependent, PluginContext } from '../../core/index.ts'
import type { CustomerRef } from '../customers/contract.ts'
import type { CertificatesTables } from './migrations.ts'
import { deleteCertificateRow, toCertificate } from './repository.ts'

/** The certificates' dependent of customers. */
export function certificateCustomerDependent(context: PluginContext): Dependent<CustomerRef> {
  return {
    name: 'certificates',
    remove: (run, customer) =>
      run.transaction(async (trx) => {
        const tables = trx.withTables<CertificatesTables>()
        await tables.deleteFrom('site_certificates').where('customer_id', '=', customer.id).execute()
        const rows = await tables
          .selectFrom('certificates')
          .selectAll()
          .where('customer_id', '=', customer.id)
          .execute()
        for (const row of rows) {
          await deleteCertificateRow(trx, row.id)
          await run.audit(trx, {
            action: 'certificate.delete',
            subject: { type: 'certificate', id: row.id },
            customerId: row.customer_id,
            details: {
              source: row.source,
              names: JSON.parse(row.names),
              serial: row.serial,
              reason: 'customer deleted',
            },
          })
          // Without its sites: their attachments went first.
          await context.emit(trx, {
            kind: 'certificate.deleted',
            customerId: row.customer_id,
            data: toCertificate({ ...row, site_ids: '[]' }),
          })
        }
      }),
  }
}
