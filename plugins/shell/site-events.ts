// What the shell plugin does when a site or a customer is deleted: its shell sessions and their recordings (sealed
// terminal output, which may show the site's secrets) are removed with it, in its deletion job.

import type { Trx } from '../../core/index.ts'
import type { ShellTables } from './migrations.ts'

/**
 * Removes a deleted customer's shell sessions and their recordings, in its deletion job (a live one's relay ends
 * it at its next access check, its session gone).
 */
export async function removeCustomerSessions(trx: Trx, customerId: string): Promise<void> {
  const db = trx.withTables<ShellTables>()
  const sessions = db.selectFrom('shell_sessions').select('id').where('customer_id', '=', customerId)
  await db.deleteFrom('shell_recordings').where('session_id', 'in', sessions).execute()
  await db.deleteFrom('shell_sessions').where('customer_id', '=', customerId).execute()
}

/** Removes a site's shell sessions and their recordings (again, after a crash: nothing is left the second time). */
export async function removeSessionsOf(trx: Trx, siteId: string): Promise<void> {
  const db = trx.withTables<ShellTables>()
  const sessions = db.selectFrom('shell_sessions').select('id').where('site_id', '=', siteId)
  await db.deleteFrom('shell_recordings').where('session_id', 'in', sessions).execute()
  await db.deleteFrom('shell_sessions').where('site_id', '=', siteId).execute()
}
