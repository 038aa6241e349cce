// A site made to match its spec, and removed: every change is a series of steps that are each safe to stop anywhere
// and to repeat (a crash, a job's next attempt).

import { mkdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { SiteEndpoint, SiteSpec } from '../contract.ts'
import { removeAbandonedTemporaries, writeFileAtomic } from './atomic-files.ts'
import { siteLayout } from './layout.ts'
import { poolConfig } from './php-fpm.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { application, placeholder } from './site-content.ts'
import { ensureHome, existingKind } from './site-home.ts'
import { readSiteState, type SiteState, siteState, stateFile } from './site-state.ts'
import { nextSiteId, siteIdRange } from './site-uids.ts'
import { endProcessesOf, ensureSiteUser, removeSiteUser } from './unix-users.ts'

/**
 * Makes the site match `site` in state `wanted` (`keep`: the state it has, `active` for a new one): user, home,
 * content, pool, server block, then state. Going active the pool comes before the block that sends to it;
 * suspending, the block answers 503 before the pool goes.
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
  const previous = await readSiteState(paths.state)
  const user =
    core.unixUsers && stack
      ? await core.locked(() =>
          ensureSiteUser(previous?.unixUser ?? paths.user, paths.home, site.id, async () =>
            nextSiteId(layout.siteIds, await siteIdRange(), signal),
          ),
        )
      : null
  const reaches = reachesOf(core, site, previous)
  // A new user is held back before anything runs as it (its pool below, its application's installer), and let
  // through to the servers its application names.
  if (user) await core.network.apply({ site: { id: site.id, uid: user.uid, reaches } })
  const web = stack?.web
  await ensureHome(paths, user && web ? { user, webGid: web.gid } : null)
  const state = wanted === 'keep' ? (previous?.state ?? 'active') : wanted
  // A run killed between writing a file and renaming it left its temporary file; the repeat clears it away.
  await removeAbandonedTemporaries([paths.placeholder, paths.state, paths.serverBlock, paths.pool])
  // A certificate installed earlier is served in every state, until it is removed.
  const certificate = previous?.certificate ?? null
  const record = (app: SiteState['app']) =>
    writeFileAtomic(
      paths.state,
      stateFile({ ...siteState(site, state, user?.name ?? null, app, certificate), reaches }),
      signal,
      0o600,
    )

  let app = previous?.app ?? null
  if (stack && (site.app || app)) app = await application(core, site, paths, previous, user, record, signal)
  else
    await placeholder(
      site,
      paths,
      previous,
      user && web ? { uid: user.uid, gid: web.gid } : undefined,
      signal,
    )

  const block = core.blockOf(site, paths, stack, { state, app, certificate })
  if (stack) {
    const pool =
      state === 'active'
        ? poolConfig(site, { paths, unixUser: user?.name ?? null, webUser: web?.name ?? null })
        : null
    if (pool) await core.change(stack.phpFpm, paths.pool, pool, signal)
    await core.change(stack.nginx, paths.serverBlock, block, signal)
    if (!pool) {
      await core.change(stack.phpFpm, paths.pool, null, signal)
      await rm(paths.socket, { force: true })
      // What the site's code started outside its pool ends with it.
      if (user) await endProcessesOf(user)
    }
  } else await writeFileAtomic(paths.serverBlock, block, signal)
  await record(app)
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

/** Removes pool, server block, Unix user, certificate, files and logs: unserved first, files last. */
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
    await core.change(stack.phpFpm, paths.pool, null, signal)
    await rm(paths.socket, { force: true })
    if (core.unixUsers) {
      await core.locked(() => removeSiteUser(previous?.unixUser ?? paths.user, paths.home))
      await core.network.apply({ removed: site.id })
    }
  } else await rm(paths.serverBlock, { force: true })
  await rm(paths.tls, { recursive: true, force: true })
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
