// How a site is served, beyond its record: its type's `serving` with every plugin's part laid over it, read each time
// the site's node is told of it.

import type { Db, PluginContext } from '../../core/index.ts'
import type { SiteServing } from '../nodes/contract.ts'
import { type SiteRef, siteServingParts, siteTypes } from './contract.ts'

/**
 * `site`'s serving as its node is told of it: its type's, then each part's members over it, in the order the parts
 * were added. Null when nothing says anything (the node serves the site as sites always were).
 */
export async function servingOf(
  context: Pick<PluginContext, 'extensionPoint'>,
  db: Db,
  site: SiteRef,
): Promise<SiteServing | null> {
  let serving: SiteServing = { ...(context.extensionPoint(siteTypes).get(site.type)?.serving ?? {}) }
  for (const part of context.extensionPoint(siteServingParts).list())
    serving = { ...serving, ...(await part.read(db, site)) }
  return Object.keys(serving).length > 0 ? serving : null
}
