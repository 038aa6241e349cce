// What a site serves: its application (installed, or a changed spec carried to it) or, without one, a placeholder
// page that names its domain and is never written over the customer's own.

import { NodeFailure, type SiteSpec } from '../contract.ts'
import { applicationSite } from './application-site.ts'
import { type FileOwner, writeFileAtomic, writeFileIfAbsent } from './atomic-files.ts'
import type { SiteLayout } from './layout.ts'
import { placeholderMarker, placeholderPage } from './placeholder.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { readSiteFile } from './site-home.ts'
import type { SiteState } from './site-state.ts'
import type { UnixUser } from './unix-users.ts'

/** The placeholder of a static site: written once, renamed with the domain, never over the customer's page. */
export async function placeholder(
  site: SiteSpec,
  paths: SiteLayout,
  previous: SiteState | null,
  owner: FileOwner | undefined,
  signal: AbortSignal,
): Promise<void> {
  const page = placeholderPage(site)
  const created = await writeFileIfAbsent(paths.placeholder, page, signal, 0o644, owner)
  if (created || !previous || previous.domain === site.domain) return
  if ((await readSiteFile(paths.placeholder))?.includes(placeholderMarker))
    await writeFileAtomic(paths.placeholder, page, signal, 0o644, owner)
}

/**
 * The site's application (its spec's, or the one installed before) applied: installed unless it is, each stage
 * recorded so a repeat goes on from the last; once installed, a changed spec is carried to it.
 */
export async function application(
  core: RuntimeCore,
  site: SiteSpec,
  paths: SiteLayout,
  previous: SiteState | null,
  user: UnixUser | null,
  record: (app: SiteState['app']) => Promise<void>,
  signal: AbortSignal,
): Promise<SiteState['app']> {
  const kind = site.app?.kind ?? previous?.app?.kind ?? ''
  const app = core.applicationOf(kind)
  if (!app)
    throw new NodeFailure(
      `Site ${site.id} runs ${kind}, which no module of this node installs`,
      'application_unavailable',
    )
  const stage = previous?.app?.kind === kind ? previous.app.stage : null
  const target = applicationSite(site, paths, previous, user, core.binaries, core.groups)
  const reached = await app.apply(
    target,
    site.app?.settings,
    stage,
    (next) => record({ kind, stage: next }),
    signal,
  )
  return { kind, stage: reached }
}
