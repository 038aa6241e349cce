// Whether a site still runs, asked of the panel's store (not the node): a site being suspended or deleted is marked
// so there before its node ends what runs as its user, so a shell or command killed by that end is told apart from
// one that ended on its own.

import type { PluginContext } from '../../core/index.ts'
import { siteDirectory } from '../sites/contract.ts'

/** What a shell or command that ended with its site says: `site_unavailable`. */
export const siteUnavailable = 'site_unavailable'

/** True when the site is gone, or suspended, being deleted or otherwise not `active`. */
export function siteGoneCheck(context: PluginContext): (siteId: string) => Promise<boolean> {
  const sites = context.use(siteDirectory)
  const everyone = { kind: 'all' } as const
  return async (siteId) => {
    const site = await sites.find(context.db, everyone, siteId)
    return site === null || site.status !== 'active'
  }
}
