// Why a database login could not be leased for a backup or restore, as its customer reads it (the backup's error,
// `backup.failed`, the job): the databases plugin's own refusal as it words it, else a sentence naming nothing of
// the server. A server's or driver's message may name its administrator or the panel's view of its network (as the
// databases plugin never shows them either), so it goes to the panel's log alone.

import { type PluginContext, Problem } from '../../core/index.ts'

/** The customer's words for `error`, a failed lease of `databaseId`'s login; anything else is logged. */
export function leaseRefusal(context: PluginContext, databaseId: string, error: unknown): string {
  if (error instanceof Problem) return error.detail
  context.log.warn({ databaseId, err: error }, 'a database login for a backup or restore could not be made')
  return 'its database server could not be reached or refused the panel (the panel’s log says why)'
}
