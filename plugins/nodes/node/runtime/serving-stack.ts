// The serving half of the runtime: its nginx master and the sites' PHP-FPM masters, their main configuration and
// directories, and the user nginx's workers run as. Made once per runtime, when it first serves.

import { readFileSync, statSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { writeFileAtomic } from './atomic-files.ts'
import type { Binaries } from './binaries.ts'
import type { ConfiguredMaster } from './configured-master.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'
import { createNginx, fastcgiParams, nginxMainConfig } from './nginx.ts'
import { createSiteMaster, type EnterSiteGroups, type PhpFpmSettings } from './php-fpm.ts'
import { findPhpVersions, type PhpVersions, phpBinaryFor, recordedPhpVersion } from './php-versions.ts'
import { pageCacheRoot } from './server-block-cache.ts'
import { findUser, type UnixUser } from './unix-users.ts'

/** nginx and PHP-FPM as the runtime runs them. */
export interface ServingStack {
  readonly nginx: ConfiguredMaster
  /**
   * The site's PHP-FPM master (`user`: its Unix user, null when the runtime makes none), running PHP `version`
   * (a `NodeFailure` `php_version_unavailable` when the node lacks it); absent, the version its configuration
   * records (else the node's default).
   */
  siteMaster(paths: SiteLayout, user: UnixUser | null, version?: string | null): ConfiguredMaster
  readonly phpSettings: PhpFpmSettings
  /** The PHP versions the sites may choose. */
  readonly phpVersions: PhpVersions
  /** The user nginx's workers run as, when the runtime is root (and makes a user per site); else null. */
  readonly web: UnixUser | null
  readonly ipv6: boolean
  /** Makes the directories and writes the main configuration (checked; a reload pending when it changed). */
  prepare(): Promise<void>
}

/** Users nginx's workers may run as, the first that exists: Debian's, then other distributions'. */
const webUserNames = ['www-data', 'nginx', 'http', 'nobody']

const hasIpv6 = () => {
  try {
    return readFileSync('/proc/net/if_inet6', 'utf8').trim() !== ''
  } catch {
    return false
  }
}

/** What the runtime keeps at the top of its data directory. */
const ownEntries = new Set([
  'nginx',
  'php',
  'sites',
  'tls',
  'disks',
  'acme',
  'services',
  'traffic-offsets.json',
  'site-uids',
  'masters.lock',
])

/**
 * Lets other users through the data directory (0711: nobody lists it) and checks every directory above does too:
 * nginx's workers and the sites' users are "others" to root's directories, and a site under a 0700 one would
 * fail obscurely. The data directory is opened up only when it holds nothing but the runtime's own (a fresh one):
 * a directory with other files in it, the panel's own for one, is refused, never opened to every user.
 */
async function openDataDir(dataDir: string): Promise<void> {
  const refuse = (dir: string, mode: number, why: string) =>
    new Error(
      `The site runtime cannot serve from ${dataDir}: ${dir} (mode ${(mode & 0o777).toString(8)}) lets no other user through, so nginx's workers and the sites' users could not reach their files${why}. Give the runtime a data directory of its own (not the panel's), or allow passage (chmod o+x ${dir}).`,
    )
  const mode = statSync(dataDir).mode
  if ((mode & 0o001) === 0) {
    const strangers = (await readdir(dataDir)).filter((name) => !ownEntries.has(name))
    if (strangers.length > 0)
      throw refuse(
        dataDir,
        mode,
        `, and it holds more than the runtime's files (${strangers.slice(0, 3).join(', ')})`,
      )
    await chmod(dataDir, 0o711)
  }
  for (let current = dirname(dataDir); ; current = dirname(current)) {
    const above = statSync(current).mode
    if ((above & 0o001) === 0) throw refuse(current, above, '')
    if (current === dirname(current)) return
  }
}

const never = new AbortController().signal

async function writeIfChanged(path: string, content: string): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => null)) !== content)
    await writeFileAtomic(path, content, never, 0o644)
}

/** Where the runtime's nginx listens. */
export interface ServingPorts {
  readonly httpPort: number
  readonly httpsPort: number
}

/** The stack over `layout`; `root` says whether the runtime runs as root. */
export async function createServingStack(
  binaries: Binaries & { nginx: string; phpFpm: string },
  layout: RuntimeLayout,
  ports: ServingPorts,
  root: boolean,
  enter: EnterSiteGroups,
): Promise<ServingStack> {
  let web: UnixUser | null = null
  if (root) {
    for (const name of webUserNames) {
      web = await findUser(name)
      if (web) break
    }
    if (!web)
      throw new Error(
        `The site runtime found none of the users ${webUserNames.join(', ')} for nginx's workers`,
      )
  }
  const ipv6 = hasIpv6()
  const nginxSettings = { binary: binaries.nginx, layout, ...ports, workerUser: web?.name ?? null, ipv6 }
  const phpSettings = { binary: binaries.phpFpm, layout, webUser: web?.name ?? null, enter }
  const nginx = createNginx(nginxSettings)
  const phpVersions = findPhpVersions(binaries.phpFpm)
  const binaryOf = (paths: SiteLayout, version: string | null | undefined) => {
    if (version) return phpBinaryFor(phpVersions, version, binaries.phpFpm)
    const recorded = recordedPhpVersion(paths.fpm.conf)
    return (
      (recorded && phpVersions.binaries.get(recorded)) ||
      phpBinaryFor(phpVersions, undefined, binaries.phpFpm)
    )
  }
  return {
    nginx,
    siteMaster: (paths, user, version) =>
      createSiteMaster({ ...phpSettings, binary: binaryOf(paths, version) }, paths, user),
    phpSettings,
    phpVersions,
    web,
    ipv6,
    async prepare() {
      // Others pass through the data directory and `sites/` (to reach their own site) but list neither.
      await mkdir(layout.dataDir, { recursive: true, mode: 0o711 })
      if (root) await openDataDir(layout.dataDir)
      await mkdir(layout.sites, { recursive: true })
      await chmod(layout.sites, 0o711)
      // nginx's workers pass through php/run/ to the sites' socket folders, and each site's master through php/sites/
      // to its own folder; nobody lists them.
      for (const dir of [layout.php.dir, layout.php.run, layout.php.sites]) {
        await mkdir(dir, { recursive: true })
        await chmod(dir, 0o711)
      }
      for (const dir of [layout.nginx.sites, dirname(layout.nginx.errorLog)])
        await mkdir(dir, { recursive: true, mode: 0o700 })
      // nginx's workers keep a request body larger than its buffer (16 KB: a media upload, a long post) in a file
      // under temp/, in folders nginx makes for them: they must pass through nginx/ and temp/ (nobody lists either).
      for (const dir of [layout.nginx.prefix, layout.nginx.temp, pageCacheRoot(layout)]) {
        await mkdir(dir, { recursive: true })
        await chmod(dir, 0o711)
      }
      // Written unchecked: nginx.conf includes it.
      await writeIfChanged(layout.nginx.fastcgiParams, fastcgiParams)
      await nginx.put(layout.nginx.conf, nginxMainConfig(nginxSettings), never)
    },
  }
}
