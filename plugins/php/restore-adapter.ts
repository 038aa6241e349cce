// What a restore of a `php` or `static` site's backup into another site of its type (a clone, a staging copy, a push
// to live) keeps and does, for the backups plugin when the installation has it: a copy of the files only. Such a
// site keeps nothing of its own under `htdocs/` (no file of the panel's names its databases), and its databases are
// not loaded into the other site (`databaseFor` maps none: the copy has no database of its own to load them into, and
// what the site's code names is its owner's, in its own files). The other site is served from the same document root
// as the source (a clone is created without type options, so with `htdocs/` itself): the root is set and carried to
// its node with a `site.update` job.

import type { PluginContext } from '../../core/index.ts'
import type { RestoreAdapter } from '../backups/contract.ts'
import { siteDirectory, siteServingChanges } from '../sites/contract.ts'
import { findPhpSite, savePhpSite } from './site-php.ts'

const everyone = { kind: 'all' } as const

/** The restore adapter of the site type `type` (`php` or `static`). */
export function phpRestoreAdapter(context: PluginContext, type: string): RestoreAdapter {
  return {
    type,
    keepOnClone: [],

    async databaseFor() {
      return null
    },

    async cloned(job, from, to) {
      const source = await findPhpSite(context.db, from.id)
      const root = source?.root ?? ''
      await job.transaction(async (trx) => {
        const before = (await findPhpSite(trx, to.id))?.root ?? ''
        if (before === root) return
        const site = await context.use(siteDirectory).find(trx, everyone, to.id)
        if (!site) return
        await savePhpSite(trx, site, { root })
        const jobId = await context.use(siteServingChanges).apply(trx, site)
        await job.audit(trx, {
          action: 'site_php.update',
          subject: { type: 'site', id: site.id },
          customerId: site.customerId,
          details: {
            root,
            before: { root: before },
            reason: 'copied from another site',
            sourceSiteId: from.id,
            jobId,
          },
        })
      })
    },
  }
}
