// The sites' PHP-FPM masters taken together: which should run (one per active site, as its `state.json` says),
// which do not, started again (the runtime's start and its watch), and all stopped (the runtime's stop). A master
// that will not start is its site's failure: the others start all the same.

import { existsSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type SiteLayout, siteLayout } from './layout.ts'
import type { RuntimeCore } from './runtime-core.ts'
import type { ServingStack } from './serving-stack.ts'
import { restartSitePhp } from './site-php.ts'
import { readSiteState, recordedSpec } from './site-state.ts'
import { findUser, type UnixUser } from './unix-users.ts'

/** An active site whose master should run. */
export interface ServedSite {
  readonly id: string
  readonly paths: SiteLayout
  readonly user: UnixUser | null
}

/**
 * The site's user as its master's folders say (the socket folder is the user's, the master's folder the user's
 * group's): no `getent` per site at every look of the watch; `getent` when the folders are not made yet.
 */
async function userOf(core: RuntimeCore, paths: SiteLayout, name: string | null): Promise<UnixUser | null> {
  if (!core.unixUsers || name === null) return null
  try {
    const uid = statSync(paths.socketDir).uid
    const gid = statSync(paths.fpm.dir).gid
    if (uid !== 0 && gid !== 0) return { name, uid, gid, home: paths.home }
  } catch {
    // Not made yet: the system's word.
  }
  return findUser(name)
}

/** The active sites of the node (a home whose `state.json` names it, served). */
export async function activeSites(core: RuntimeCore): Promise<ServedSite[]> {
  const found: ServedSite[] = []
  for (const name of await readdir(core.layout.sites).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue
    const state = await readSiteState(join(core.layout.sites, name, 'state.json')).catch(() => null)
    if (state?.siteId !== name || state.state !== 'active') continue
    const paths = siteLayout(core.layout, recordedSpec(state))
    found.push({ id: name, paths, user: await userOf(core, paths, state.unixUser) })
  }
  return found
}

/** The active sites whose master does not run (a site served without PHP has none: no configuration). */
export async function sitesDown(core: RuntimeCore, stack: ServingStack): Promise<ServedSite[]> {
  return (await activeSites(core)).filter(
    (site) => existsSync(site.paths.pool) && stack.siteMaster(site.paths, site.user).running() === null,
  )
}

/** What starting the sites' masters did: the leftovers it ended, and the sites whose master would not start. */
export interface SiteMastersStarted {
  readonly ended: number[]
  readonly failed: ReadonlyArray<{ readonly siteId: string; readonly error: string }>
}

/**
 * Starts the masters of `sites` that do not run, each under its site's lock: a site suspended or deleted (or not
 * yet given its configuration) since the list was read is left alone.
 */
export async function startSiteMasters(
  core: RuntimeCore,
  stack: ServingStack,
  sites: readonly ServedSite[],
): Promise<SiteMastersStarted> {
  const ended: number[] = []
  const failed: { siteId: string; error: string }[] = []
  for (const site of sites) {
    try {
      const restarted = await core.siteLocked(site.id, async () => {
        const state = await readSiteState(site.paths.state).catch(() => null)
        if (state?.state !== 'active' || !existsSync(site.paths.pool)) return []
        // Its groups again if the node lost them (a reboot): the master can only start inside them.
        if (site.user) await core.groups.ensure(recordedSpec(state))
        return restartSitePhp(stack, site.paths, site.user)
      })
      ended.push(...restarted)
    } catch (error) {
      failed.push({ siteId: site.id, error: (error as Error).message })
    }
  }
  return { ended, failed }
}

/** Stops every site's master the node has a folder for (active or not: a suspended site's may be left running). */
export async function stopSiteMasters(core: RuntimeCore, stack: ServingStack): Promise<void> {
  const served = new Map((await activeSites(core)).map((site) => [site.id, site]))
  for (const name of await readdir(core.layout.php.sites).catch(() => [] as string[])) {
    const known = served.get(name)
    if (known) {
      await core.siteLocked(name, () => stack.siteMaster(known.paths, known.user).stop())
      continue
    }
    const state = await readSiteState(join(core.layout.sites, name, 'state.json')).catch(() => null)
    if (state?.siteId !== name) continue
    const paths = siteLayout(core.layout, recordedSpec(state))
    const user = await userOf(core, paths, state.unixUser)
    await core.siteLocked(name, () => stack.siteMaster(paths, user).stop())
  }
}
