// What the shell plugin does when a site is deleted: its shell sessions and their recordings (sealed terminal
// output, which may show the site's secrets) are removed with it, in the handler's transaction.

import type { OutboxEvent, Trx } from '../../core/index.ts'
import type { ShellTables } from './migrations.ts'

/** Handles `site.deleted`. */
export async function siteDeleted(trx: Trx, event: OutboxEvent): Promise<void> {
  const siteId = String(event.data.id)
  const db = trx.withTables<ShellTables>()
  const sessions = db.selectFrom('shell_sessions').select('id').where('site_id', '=', siteId)
  await db.deleteFrom('shell_recordings').where('session_id', 'in', sessions).execute()
  await db.deleteFrom('shell_sessions').where('site_id', '=', siteId).execute()
}
