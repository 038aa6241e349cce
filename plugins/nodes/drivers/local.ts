// The built-in `local` node driver: runs sites on the machine the panel runs on, as files under
// `<dataDir>/sites/<site id>/` (document root, nginx server block, state), every operation idempotent.

import { lstat, mkdir, readFile, rename, rm } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { JobFailure } from '../../../core/index.ts'
import type { Node, NodeDriver, SiteReport, SiteSpec } from '../contract.ts'
import {
  directoryBytes,
  removeAbandonedTemporaries,
  writeFileAtomic,
  writeFileIfAbsent,
} from './atomic-files.ts'
import {
  type LocalSiteState,
  parseStateFile,
  placeholderMarker,
  placeholderPage,
  serverBlock,
  stateFile,
} from './site-files.ts'

/** Options of {@link createLocalDriver}. */
export interface LocalDriverOptions {
  /** The panel's data directory; sites go to `<dataDir>/sites/<site id>/`. */
  readonly dataDir: string
}

/** Names of the files and folders of one site's directory. */
export const localSiteLayout = {
  documentRoot: 'htdocs',
  logs: 'logs',
  serverConfig: 'nginx.conf',
  state: 'state.json',
} as const

// Ids and handles become directory and file names: one path segment, no dots, nothing to escape with.
const idPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/
const handlePattern = /^[a-z0-9][a-z0-9-]{0,62}$/
const domainPattern = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/
// Inside nginx's double quotes, `"` and `\` end or escape the string and `$` starts a variable.
const unsafeForNginx = /["\\$\p{Cc}]/u

/**
 * Refuses a site the driver cannot safely lay out: an id or handle that could leave `<dataDir>/sites/` or a domain
 * that could inject nginx directives. A {@link JobFailure}, since repeating the job cannot fix it.
 */
export function checkSiteSpec(site: SiteSpec): void {
  const fail = (what: string) => {
    throw new JobFailure(
      `The local driver refuses site ${JSON.stringify(site.id)}: ${what}`,
      'unsafe_site_spec',
    )
  }
  if (!idPattern.test(site.id)) fail('its id is not a safe directory name')
  if (!handlePattern.test(site.handle)) fail('its handle is not a safe name')
  if (!domainPattern.test(site.domain)) fail('its domain is not a lower-case host name')
  if (!idPattern.test(site.customerId)) fail('its customer id is not a plain identifier')
  if (site.diskMB !== null && !(Number.isSafeInteger(site.diskMB) && site.diskMB >= 0))
    fail('its disk quota is not a whole number of MB')
}

/** The `local` driver over `options.dataDir`. Throws if the directory could not be named safely in nginx. */
export function createLocalDriver(options: LocalDriverOptions): NodeDriver {
  const sitesRoot = join(resolve(options.dataDir), 'sites')
  if (unsafeForNginx.test(sitesRoot))
    throw new Error(
      `The local driver cannot use ${JSON.stringify(sitesRoot)}: it contains " \\ $ or a control character`,
    )
  const trash = join(sitesRoot, '.trash')

  /** The site's directory, after checking the spec, and that the path is one segment below `sites/`. */
  function siteDir(site: SiteSpec): string {
    checkSiteSpec(site)
    const dir = resolve(sitesRoot, site.id)
    if (dirname(dir) !== sitesRoot)
      throw new JobFailure(`Site ${site.id} escapes ${sitesRoot}`, 'unsafe_site_spec')
    return dir
  }

  /** The directory as it is on disk: refuses a symbolic link in its place (writes would land elsewhere). */
  async function existingKind(dir: string): Promise<'absent' | 'directory'> {
    try {
      const stats = await lstat(dir)
      if (stats.isDirectory()) return 'directory'
      throw new JobFailure(`${dir} exists and is not a directory`, 'unsafe_site_directory')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
      throw error
    }
  }

  async function readState(dir: string): Promise<LocalSiteState | null> {
    try {
      return parseStateFile(await readFile(join(dir, localSiteLayout.state), 'utf8'))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
  }

  /**
   * Makes the site's files match `site` in state `wanted` (`keep`: the state it has, `active` for a new site).
   * Steps in an order that is safe to stop anywhere and repeat: folders, placeholder, server block, then state.
   */
  async function apply(
    node: Node,
    site: SiteSpec,
    wanted: LocalSiteState['state'] | 'keep',
    signal: AbortSignal,
  ): Promise<void> {
    signal.throwIfAborted()
    const dir = siteDir(site)
    await mkdir(sitesRoot, { recursive: true })
    await existingKind(dir)
    const documentRoot = join(dir, localSiteLayout.documentRoot)
    const logs = join(dir, localSiteLayout.logs)
    await mkdir(documentRoot, { recursive: true })
    await mkdir(logs, { recursive: true })
    const previous = await readState(dir)
    const state = wanted === 'keep' ? (previous?.state ?? 'active') : wanted
    const index = join(documentRoot, 'index.html')
    const serverConfig = join(dir, localSiteLayout.serverConfig)
    const stateJson = join(dir, localSiteLayout.state)
    // A run killed between writing a file and renaming it left its temporary file; the repeat clears it away.
    await removeAbandonedTemporaries([index, serverConfig, stateJson])
    const created = await writeFileIfAbsent(index, placeholderPage(site), signal)
    // A domain change renames our placeholder too, never a page the customer put there.
    if (!created && previous && previous.domain !== site.domain) {
      const current = await readFile(index, 'utf8').catch(() => '')
      if (current.includes(placeholderMarker)) await writeFileAtomic(index, placeholderPage(site), signal)
    }
    await writeFileAtomic(serverConfig, serverBlock(site, { documentRoot, logs }, state), signal)
    const record: LocalSiteState = {
      siteId: site.id,
      handle: site.handle,
      domain: site.domain,
      type: site.type,
      customerId: site.customerId,
      nodeId: node.id,
      diskMB: site.diskMB,
      state,
      updatedAt: new Date().toISOString(),
    }
    await writeFileAtomic(stateJson, stateFile(record), signal)
  }

  return {
    name: 'local',
    description:
      'Sites on the machine the panel runs on: files under the data directory and an nginx server block.',
    provision: (node, site, signal) => apply(node, site, 'keep', signal),
    update: (node, site, signal) => apply(node, site, 'keep', signal),
    suspend: (node, site, signal) => apply(node, site, 'suspended', signal),
    unsuspend: (node, site, signal) => apply(node, site, 'active', signal),
    async delete(_node, site, signal) {
      signal.throwIfAborted()
      const dir = siteDir(site)
      const parked = join(trash, site.id)
      // Moved aside in one step first, so the site is gone at once (no half-deleted site still served), then
      // removed; a run that stopped in between finishes the removal next time.
      if ((await existingKind(dir)) === 'directory') {
        await mkdir(trash, { recursive: true })
        await rm(parked, { recursive: true, force: true })
        signal.throwIfAborted()
        await rename(dir, parked)
      }
      await rm(parked, { recursive: true, force: true })
    },
    async report(_node, site): Promise<SiteReport> {
      const dir = siteDir(site)
      if ((await existingKind(dir)) === 'absent') return { state: 'absent', diskBytes: 0 }
      const state = await readState(dir)
      return { state: state?.state ?? 'absent', diskBytes: await directoryBytes(dir) }
    },
  }
}
