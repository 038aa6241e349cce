// A site as an application installing into it sees it: the site (programs run as its user) with its document root,
// the spec being applied, the node's programs, and writes of whole files owned by the site's user.

import type { ApplicationSite, NodePrograms, SiteSpec } from '../contract.ts'
import { writeFileAtomic } from './atomic-files.ts'
import type { SiteLayout } from './layout.ts'
import { nodeSite } from './node-site.ts'
import type { SiteGroups } from './site-groups.ts'
import { readSiteFile } from './site-home.ts'
import type { SiteState } from './site-state.ts'
import type { UnixUser } from './unix-users.ts'

/** The site `site` being applied (its home laid out), as its application sees it. */
export function applicationSite(
  site: SiteSpec,
  paths: SiteLayout,
  previous: SiteState | null,
  user: UnixUser | null,
  programs: NodePrograms,
  groups: SiteGroups,
): ApplicationSite {
  const owner = user ? { uid: user.uid, gid: user.gid } : undefined
  return {
    ...nodeSite({
      id: site.id,
      home: paths.home,
      state: previous?.state ?? 'active',
      user,
      diskMB: site.diskMB,
      image: paths.image,
      enter: (argv) => groups.enter(site.id, argv),
    }),
    spec: site,
    htdocs: paths.htdocs,
    previousDomain: previous && previous.domain !== site.domain ? previous.domain : null,
    programs,
    writeFile: (path, content, mode, signal) => writeFileAtomic(path, content, signal, mode, owner),
    readFile: (path, maxBytes) => readSiteFile(path, maxBytes),
  }
}
