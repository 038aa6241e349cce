// A site made to match its spec, and removed: every change is a series of steps that are each safe to stop anywhere
// and to repeat (a crash, a job's next attempt).

import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { SiteEndpoint, SiteSpec } from '../contract.ts'
import { removeAbandonedTemporaries, writeFileAtomic } from './atomic-files.ts'
import { mountAt } from './disk-images.ts'
import { type SiteLayout, siteLayout } from './layout.ts'
import { forgetHits } from './limit-hits.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { application, placeholder } from './site-content.ts'
import { ensureSiteDisk, mountSiteDisk, removeSiteDisk } from './site-disks.ts'
import { ensureHome, existingKind } from './site-home.ts'
import { ensureSitePhp, removeSitePhp } from './site-php.ts'
import { holdRoom, outOfRoom, withRoom } from './site-room.ts'
import { isSafeSiteId } from './site-spec.ts'
import {
  readSiteState,
  recordedSpec,
  type SiteState,
  servingRulesOf,
  siteState,
  stateFile,
} from './site-state.ts'
import { nextSiteId, siteIdRange } from './site-uids.ts'
import { endProcessesOf, ensureSiteUser, findUser, removeSiteUser, type UnixUser } from './unix-users.ts'

/**
 * Makes the site match `site` in state `wanted` (`keep`: the state it has, `active` for a new one): user, disk,
 * home, content, PHP-FPM master, server block, then state. Going active the master runs before the block that sends
 * to it; suspending, the block answers 503 before the master stops.
 */
export async function applySite(
  core: RuntimeCore,
  site: SiteSpec,
  wanted: SiteState['state'] | 'keep',
  signal: AbortSignal,
): Promise<void> {
  const { layout } = core
  signal.throwIfAborted()
  const paths = siteLayout(layout, site)
  const stack = await core.serving()
  await mkdir(layout.sites, { recursive: true })
  await mkdir(layout.nginx.sites, { recursive: true })
  await existingKind(paths.home)
  // Its state is on its image, when it has one.
  await mountSiteDisk(paths, signal)
  const previous = await readSiteState(paths.state)
  const user =
    core.unixUsers && stack
      ? await core.locked(() =>
          ensureSiteUser(previous?.unixUser ?? paths.user, paths.home, site.id, async () =>
            nextSiteId(layout.siteIds, await siteIdRange(), signal),
          ),
        )
      : null
  // Its group, with its limits, before anything of the site runs (its application's installer included); a changed
  // limit holds at once for what already runs.
  if (user) await core.groups.apply(site)
  const reaches = reachesOf(core, site, previous)
  // A new user is held back before anything runs as it (its pool below, its application's installer), and let
  // through to the servers its application names.
  if (user) await core.network.apply({ site: { id: site.id, uid: user.uid, reaches } })
  const web = stack?.web
  // What holds the site's files when its filesystem must be unmounted (moved onto an image, resized where the
  // kernel does not do it mounted): unserved (nginx keeps its logs open), its master and processes ended. The steps
  // below serve it again.
  const release = async () => {
    if (stack) {
      await core.change(stack.nginx, paths.serverBlock, null, signal)
      // Its master logs into the site's logs/: stopped (its configuration kept), started again below.
      await stack.siteMaster(paths, user).stop()
    }
    if (user) await endSiteProcesses(core, site.id, user)
  }
  const disks = await core.diskEnforcement()
  await ensureSiteDisk(layout, paths, site.diskMB, disks.enforced, release, signal)
  await ensureHome(paths, user && web ? { user, webGid: web.gid } : null)
  // On a filesystem of its own, the site can use every inode of it: the runtime holds room back for its state.
  if ((await mountAt(paths.home)) !== null) await holdRoom(paths)
  const state = wanted === 'keep' ? (previous?.state ?? 'active') : wanted
  // A run killed between writing a file and renaming it left its temporary file; the repeat clears it away.
  await removeAbandonedTemporaries([
    paths.placeholder,
    paths.state,
    paths.serverBlock,
    paths.pool,
    paths.servingRules,
  ])
  // A certificate installed earlier is served in every state, until it is removed.
  const certificate = previous?.certificate ?? null
  const record = (app: SiteState['app']) =>
    withRoom(paths, () =>
      writeFileAtomic(
        paths.state,
        stateFile({ ...siteState(site, state, user?.name ?? null, app, certificate), reaches }),
        signal,
        0o600,
      ),
    )

  let app = previous?.app ?? null
  if (stack && (site.app || app)) app = await application(core, site, paths, previous, user, record, signal)
  else {
    const putBack = () =>
      placeholder(site, paths, previous, user && web ? { uid: user.uid, gid: web.gid } : undefined, signal)
    // Suspending, a placeholder the site left no room for waits for its return (the room held back is its state's):
    // the suspension does not.
    if (state === 'active') await withRoom(paths, putBack)
    else
      await putBack().catch((error) => {
        if (!outOfRoom(error)) throw error
      })
  }

  const block = core.blockOf(site, paths, stack, { state, app, certificate })
  if (stack) {
    // The site's own master: a change reloads it alone, never another site's.
    if (state === 'active') await ensureSitePhp(stack, site, paths, user, signal)
    await core.change(stack.nginx, paths.serverBlock, block, signal)
    if (state !== 'active') {
      await removeSitePhp(stack, paths, user)
      // What the site's code started outside its master ends with it: its group, whatever forks meanwhile.
      if (user) await endSiteProcesses(core, site.id, user)
    }
  } else await writeFileAtomic(paths.serverBlock, block, signal)
  await recordRules(paths, site, signal)
  await record(app)
}

/** Keeps the site's redirects and headers as applied (root's file), or removes the file when it has none. */
async function recordRules(paths: SiteLayout, site: SiteSpec, signal: AbortSignal): Promise<void> {
  const rules = servingRulesOf(site.serving)
  if (!rules) return rm(paths.servingRules, { force: true })
  await mkdir(dirname(paths.servingRules), { recursive: true, mode: 0o700 })
  await writeFileAtomic(paths.servingRules, `${JSON.stringify(rules)}\n`, signal, 0o600)
}

/**
 * The servers the site's application names in the spec's settings, or those recorded last when the spec carries
 * none (a suspension) or names no application; settings the application refuses name none here (its `apply` says
 * why).
 */
function reachesOf(core: RuntimeCore, site: SiteSpec, previous: SiteState | null): readonly SiteEndpoint[] {
  const application = site.app ? core.applicationOf(site.app.kind) : undefined
  if (!site.app?.settings || !application?.reaches) return previous?.reaches ?? []
  try {
    return application.reaches(site.app.settings)
  } catch {
    return previous?.reaches ?? []
  }
}

/**
 * Makes the site's group again when it is missing (the machine lost it), from what its `state.json` records: after
 * every operation on the site queued before, so a deletion under way is never undone by a call that read the site
 * just before it (a group left with no site). Only a missing group waits for the site's lock.
 */
export async function restoreGroup(core: RuntimeCore, siteId: string): Promise<void> {
  if (core.groups.has(siteId)) return
  await core.siteLocked(siteId, async () => {
    const state = await readSiteState(join(core.layout.sites, siteId, 'state.json'))
    if (state?.siteId === siteId && state.unixUser) await core.groups.ensure(recordedSpec(state))
  })
}

/**
 * Makes every kept site's group again with the limits its `state.json` records: groups live in the kernel, so a
 * reboot loses them, and a site's processes may run only in its group.
 */
export async function restoreGroups(core: RuntimeCore): Promise<void> {
  if (!core.groups.available) return
  const names = await readdir(core.layout.sites).catch(() => [] as string[])
  for (const name of names) if (isSafeSiteId(name)) await restoreGroup(core, name)
}

/**
 * Ends the site's processes through its group (the kernel kills them all, whatever forks meanwhile), then whatever
 * still runs as its user outside it (started before groups were made on this node: none after the first restart).
 */
async function endSiteProcesses(core: RuntimeCore, siteId: string, user: UnixUser): Promise<void> {
  await core.groups.end(siteId)
  await endProcessesOf(user)
}

/** Removes master, server block, Unix user, certificate, files and logs: unserved first, files last. */
export async function removeSite(core: RuntimeCore, site: SiteSpec, signal: AbortSignal): Promise<void> {
  const { layout } = core
  signal.throwIfAborted()
  const paths = siteLayout(layout, site)
  const stack = await core.serving()
  const exists = (await existingKind(paths.home)) === 'directory'
  const previous = exists ? await readSiteState(paths.state) : null
  // Unserved first, then its processes and user, then its files: nothing half-deleted is ever served.
  if (stack) {
    await core.change(stack.nginx, paths.serverBlock, null, signal)
    const user = core.unixUsers ? await findUser(previous?.unixUser ?? paths.user) : null
    await removeSitePhp(stack, paths, user)
    if (core.unixUsers) {
      await core.groups.end(site.id)
      await core.locked(() => removeSiteUser(previous?.unixUser ?? paths.user, paths.home))
      await core.groups.remove(site.id)
      await core.network.apply({ removed: site.id })
    }
  } else await rm(paths.serverBlock, { force: true })
  await rm(paths.tls, { recursive: true, force: true })
  await rm(paths.servingRules, { force: true })
  await forgetHits(layout.resources, site.id)
  // Its filesystem unmounted (its processes ended with its user) and its image removed.
  await removeSiteDisk(layout, paths, signal)
  // Moved aside in one step, then removed; a run that stopped in between finishes the removal next time.
  const parked = join(layout.trash, site.id)
  if (exists) {
    await mkdir(layout.trash, { recursive: true, mode: 0o700 })
    await rm(parked, { recursive: true, force: true })
    signal.throwIfAborted()
    await rename(paths.home, parked)
  }
  await rm(parked, { recursive: true, force: true })
}
