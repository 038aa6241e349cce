// Starting a site's deletion, the one way every caller does it (DELETE /sites/{id}, billing's removal of a
// customer's resources): the site becomes `deleting` with its `site.delete` job, which waits for the job before it
// (two never change a site at once), and a provisioning under way or waiting to try again is cancelled, so the
// deletion starts within seconds rather than after the provisioning's last attempt.

import type { PluginContext, Trx } from '../../core/index.ts'
import { siteJobKinds } from './jobs.ts'
import { moveSite, type SiteWriters } from './lifecycle.ts'
import type { SitesTable } from './migrations.ts'

/** Moves site `row` to `deleting` in `trx` (409 `illegal_site_transition` when it already is); answers the row. */
export async function startSiteDeletion(
  trx: Trx,
  context: Pick<PluginContext, 'cancelJob'>,
  writers: SiteWriters,
  row: SitesTable,
  details?: Readonly<Record<string, unknown>>,
): Promise<SitesTable> {
  const moved = await moveSite(trx, writers, row, {
    to: 'deleting',
    jobKind: siteJobKinds.delete,
    ...(row.job_id ? { jobInput: { after: row.job_id } } : {}),
    action: 'site.delete',
    ...(details ? { details } : {}),
  })
  if (row.status === 'provisioning' && row.job_id) await context.cancelJob(trx, row.job_id)
  return moved
}
