// A site's PHP-FPM master brought to its spec: its folders and files owned so the master (the site's user) reads its
// configuration and appends to its log but changes neither, its socket folder shared with nginx's workers alone,
// its configuration checked, and the master started, or reloaded (it alone) when its configuration changed; and
// stopped, with its files gone, when the site is suspended or deleted.

import { chmod, lchown, mkdir, open, readFile, rm } from 'node:fs/promises'
import type { SiteSpec } from '../contract.ts'
import { writeFileAtomic } from './atomic-files.ts'
import type { ConfiguredMaster } from './configured-master.ts'
import type { SiteLayout } from './layout.ts'
import { siteFpmConfig } from './php-fpm.ts'
import { sandboxGroup, sandboxPasswd } from './php-sandbox.ts'
import { recordedPhpVersion } from './php-versions.ts'
import type { ServingStack } from './serving-stack.ts'
import type { UnixUser } from './unix-users.ts'

const never = new AbortController().signal

async function writeIfChanged(path: string, content: string, mode: number): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => null)) !== content)
    await writeFileAtomic(path, content, never, mode)
}

/**
 * The master's folders: `php/sites/<id>/` root's, the site's group passing through and reading (0750); its log (in
 * the site's `logs/`, root's folder) root's too, the group appending (0620: the master opens it by name, and again
 * after a rotation); the socket's folder the site's user's, group www-data (0750): nginx's workers and the site
 * alone reach the socket.
 */
async function prepareFiles(paths: SiteLayout, user: UnixUser | null, webGid: number | null): Promise<void> {
  await mkdir(paths.fpm.dir, { recursive: true, mode: 0o700 })
  await mkdir(paths.socketDir, { recursive: true, mode: 0o700 })
  await (await open(paths.fpm.log, 'a', 0o600)).close()
  if (user && webGid !== null) {
    await lchown(paths.fpm.dir, 0, user.gid)
    await chmod(paths.fpm.dir, 0o750)
    await lchown(paths.fpm.log, 0, user.gid)
    await chmod(paths.fpm.log, 0o620)
    await lchown(paths.socketDir, user.uid, webGid)
    await chmod(paths.socketDir, 0o750)
  }
  await writeIfChanged(paths.fpm.passwd, sandboxPasswd(user, paths), 0o644)
  await writeIfChanged(paths.fpm.group, sandboxGroup(user), 0o644)
}

/**
 * Brings the site's master to `site`: its configuration written and checked by the PHP it runs (a refused one is
 * put back, the master serving on as it was), then the master started when it does not run, started again on
 * another PHP version, reloaded when its configuration changed, and left alone otherwise. A site served without
 * PHP (`serving.php` false) has no master: one left from before is stopped.
 */
export async function ensureSitePhp(
  stack: ServingStack,
  site: SiteSpec,
  paths: SiteLayout,
  user: UnixUser | null,
  signal: AbortSignal,
): Promise<ConfiguredMaster | null> {
  if (site.serving?.php === false) {
    await removeSitePhp(stack, paths, user)
    return null
  }
  const version = site.serving?.phpVersion ?? stack.phpVersions.defaultVersion
  const before = recordedPhpVersion(paths.fpm.conf)
  const master = stack.siteMaster(paths, user, version)
  await prepareFiles(paths, user, stack.web?.gid ?? null)
  await master.put(paths.pool, siteFpmConfig(site, { paths, version }), signal)
  if (master.running() === null) await master.start()
  else if (before !== undefined && version !== null && before !== version) {
    // A reload re-executes the binary that runs: another version needs a master of its own.
    await master.stop()
    await master.start()
  } else await master.applyPending()
  return master
}

/** Starts the site's master again from the configuration it has (the watch's repair): nothing when it runs. */
export async function restartSitePhp(
  stack: ServingStack,
  paths: SiteLayout,
  user: UnixUser | null,
): Promise<number[]> {
  const master = stack.siteMaster(paths, user)
  if (master.running() !== null) return []
  await prepareFiles(paths, user, stack.web?.gid ?? null)
  return master.start()
}

/** Stops the site's master, and removes its folder and socket (its log, in the site's `logs/`, stays with the site). */
export async function removeSitePhp(
  stack: ServingStack,
  paths: SiteLayout,
  user: UnixUser | null,
): Promise<void> {
  await stack.siteMaster(paths, user).stop()
  await rm(paths.socketDir, { recursive: true, force: true })
  await rm(paths.fpm.dir, { recursive: true, force: true })
}
