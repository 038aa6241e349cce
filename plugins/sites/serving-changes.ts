// The service that carries a change of a site's serving part (its PHP settings, its cache, its redirects) to its
// node: a `site.update` job, which reads every part when it runs.

import { type PluginContext, Problem, type Trx } from '../../core/index.ts'
import type { SiteRef, SiteServingChanges } from './contract.ts'
import { siteJobKinds } from './jobs.ts'
import { sitesProblems } from './problems.ts'
import { findSiteRow, updateSite } from './repository.ts'

/** The sites plugin's {@link SiteServingChanges}. */
export function siteServingChangesService(context: PluginContext): SiteServingChanges {
  return {
    async apply(trx: Trx, site: SiteRef) {
      const row = await findSiteRow(trx, site.id)
      if (!row) return null
      if (row.status === 'deleting')
        throw new Problem(sitesProblems.site_busy, {
          detail: 'The site is being deleted.',
          extensions: { currentStatus: row.status },
        })
      // Provisioning reads every part when it runs, and a retry of a failed site provisions it as it then is.
      if (row.status !== 'active' && row.status !== 'suspended') return null
      const jobId = await context.enqueueJob(trx, {
        kind: siteJobKinds.update,
        customerId: row.customer_id,
        subject: { type: 'site', id: row.id },
      })
      await updateSite(trx, row.id, { job_id: jobId })
      return jobId
    },
  }
}
