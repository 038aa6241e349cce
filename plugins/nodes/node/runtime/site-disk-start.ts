// What a runtime's start does for its sites' disks before it serves: after a node's reboot the loop devices and
// mounts are gone, so every site's image is mounted again; a site whose image will not mount is taken out of
// nginx's and PHP-FPM's configuration (its logs would be opened under a bare directory, and nginx would refuse to
// start for every site) until its next apply, and said; sites with a quota still on a plain home (made before quotas
// were enforced) are moved onto an image of their own.

import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { SiteSpec } from '../contract.ts'
import { mountAt } from './disk-images.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { mountSiteDisks } from './site-disks.ts'
import { readSiteState, recordedServedSpec } from './site-state.ts'

/** A site whose disk the start could not settle, and why. */
export interface UnsettledDisk {
  readonly siteId: string
  readonly reason: string
}

/**
 * Mounts every site's image, unserves the sites whose image would not mount, and applies again (`apply`: the
 * runtime's own, under the site's lock) each site with a quota on a plain home, which moves it onto an image.
 * Answers what it could not settle (a site's report then fails, saying its image is not mounted).
 */
export async function settleSiteDisks(
  core: RuntimeCore,
  apply: (site: SiteSpec, signal: AbortSignal) => Promise<void>,
): Promise<readonly UnsettledDisk[]> {
  const { layout } = core
  const signal = new AbortController().signal
  const unsettled: UnsettledDisk[] = [...(await mountSiteDisks(layout, signal))]
  const stack = await core.serving().catch(() => null)
  // Its PHP-FPM master is not started: its `state.json`, on the image, is unreadable, so the site is not active.
  for (const { siteId } of unsettled) {
    if (!stack) continue
    await core.change(stack.nginx, join(layout.nginx.sites, `${siteId}.conf`), null, signal).catch(() => {})
  }
  for (const name of await readdir(layout.sites).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue
    const home = join(layout.sites, name)
    if (await mountAt(home)) continue
    const state = await readSiteState(join(home, 'state.json')).catch(() => null)
    if (state?.siteId !== name || state.diskMB === null) continue
    // Probed only when a site needs it: a node without such sites starts as fast as before.
    if (!(await core.diskEnforcement()).enforced) break
    try {
      await apply(await recordedServedSpec(layout, state), signal)
    } catch (error) {
      unsettled.push({ siteId: name, reason: (error as Error).message })
    }
  }
  return unsettled
}
