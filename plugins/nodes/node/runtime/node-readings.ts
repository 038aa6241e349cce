// What the node says of itself and its sites: what it can run, a site's state, what every site takes on disk, and
// what each served since the last reading, and everything it holds (its inventory, for reconciliation).

import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type {
  InventorySite,
  InventoryStray,
  NodeInventory,
  NodeReadiness,
  SiteReport,
  SiteSpec,
} from '../contract.ts'
import { readAccessLogs } from './access-logs.ts'
import { findSandbox, versionsOf } from './binaries.ts'
import { lacksOf } from './capabilities.ts'
import { directoryBytes } from './disk-usage.ts'
import { siteLayout } from './layout.ts'
import { serialized } from './lock.ts'
import { findPhpVersions } from './php-versions.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { siteDiskUse } from './site-disks.ts'
import { existingKind } from './site-home.ts'
import type { RuntimeCapabilities, SiteDisk, TrafficReading } from './site-runtime.ts'
import { readSiteState } from './site-state.ts'

const never = new AbortController().signal

/** What the node can run: its programs, its modules' applications and services, what it lacks, its `readiness`. */
export async function capabilitiesOf(
  core: RuntimeCore,
  readiness: NodeReadiness,
): Promise<RuntimeCapabilities> {
  const { binaries, servable, settings } = core
  const versions = await versionsOf(binaries)
  const { services, applications } = core.parts()
  const probed = await Promise.all(
    applications.map(async (application) => ({
      kind: application.kind,
      probe: await application.probe(binaries),
    })),
  )
  return {
    ...versions,
    phpVersions: [...findPhpVersions(binaries.phpFpm).binaries.keys()],
    unixUsers: core.unixUsers,
    mode: servable ? 'serving' : 'files-only',
    applications: Object.fromEntries(
      probed.flatMap(({ kind, probe }) => ('version' in probe && servable ? [[kind, probe.version]] : [])),
    ),
    services: Object.fromEntries(
      await Promise.all(services.map(async (service) => [service.name, (await service.describe?.()) ?? {}])),
    ),
    missing: [
      ...lacksOf(binaries, probed, {
        filesOnly: settings.filesOnly === true,
        root: core.root,
        dataDir: core.layout.dataDir,
        sandbox: findSandbox() !== null,
      }),
      ...core.network.lacks(),
    ],
    setup: settings.setupCommand ?? 'npm run agent -- setup',
    readiness,
    // The groups' kinds, and the disk's own: an image per site where the node can mount one.
    limits: { ...core.groups.enforcement(), disk: await core.diskEnforcement() },
    network: core.network.enforcement(),
  }
}

/** The site's state, the bytes its home takes and the fingerprint of the certificate it serves (null: none). */
export async function reportOf(core: RuntimeCore, site: SiteSpec): Promise<SiteReport> {
  const paths = siteLayout(core.layout, site)
  if ((await existingKind(paths.home)) === 'absent')
    return { state: 'absent', diskBytes: 0, certificate: null }
  // First: a site whose image is not mounted fails here, rather than reading as absent (its state is on the image).
  const disk = await siteDiskUse(paths.home, paths.image, never, directoryBytes)
  const state = await readSiteState(paths.state)
  return {
    state: state?.state ?? 'absent',
    diskBytes: disk.bytes,
    certificate: state?.certificate ?? null,
  }
}

/** The ids of the sites the node keeps (a home whose `state.json` names it). */
async function siteIds(core: RuntimeCore): Promise<string[]> {
  const ids: string[] = []
  for (const name of await readdir(core.layout.sites).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue
    const state = await readSiteState(join(core.layout.sites, name, 'state.json'))
    if (state?.siteId === name) ids.push(name)
  }
  return ids
}

/**
 * What every site on the node takes on disk now: its filesystem's count for a site on its own image (at once), `du`
 * for a plain home (without following links out of it).
 */
export async function diskOf(core: RuntimeCore): Promise<readonly SiteDisk[]> {
  const found: SiteDisk[] = []
  for (const siteId of await siteIds(core)) {
    const home = join(core.layout.sites, siteId)
    const image = join(core.layout.disks, `${siteId}.ext4`)
    // A site whose image is not mounted is left out (its report says why), not counted as empty.
    const use = await siteDiskUse(home, image, never, directoryBytes).catch(() => null)
    if (use) found.push({ siteId, bytes: use.bytes })
  }
  return found
}

/** What each site served since the last reading, from the access logs (offsets kept under the data directory). */
export function trafficOf(core: RuntimeCore): Promise<TrafficReading[]> {
  const { layout } = core
  return serialized(`${layout.dataDir}#traffic`, async () => {
    const logs = new Map(
      (await siteIds(core)).map((id) => [id, join(layout.sites, id, 'logs', 'access.log')]),
    )
    const counts = await readAccessLogs(logs, layout.trafficOffsets)
    const at = new Date().toISOString()
    return [...counts]
      .filter(([, count]) => count.requests > 0)
      .map(([siteId, count]) => ({ siteId, ...count, at }))
  })
}

/** The names of the `.conf` files in `dir`, without the extension (none when it does not exist). */
async function confNames(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  return names.filter((name) => name.endsWith('.conf')).map((name) => name.slice(0, -'.conf'.length))
}

/**
 * What the node holds: every site its `state.json` files record, what belongs to none of them (a home without a
 * state, a server block or pool of no such site), and what its services keep per site. Read only: nothing changes.
 */
export async function inventoryOf(core: RuntimeCore): Promise<NodeInventory> {
  const { layout } = core
  const sites: InventorySite[] = []
  const strays: InventoryStray[] = []
  for (const name of (await readdir(layout.sites).catch(() => [] as string[])).sort()) {
    if (name.startsWith('.')) continue
    const state = await readSiteState(join(layout.sites, name, 'state.json')).catch(() => null)
    if (state?.siteId !== name) {
      strays.push({ kind: 'home', name })
      continue
    }
    sites.push({
      id: state.siteId,
      domain: state.domain,
      state: state.state,
      certificate: state.certificate,
      app: state.app?.kind ?? null,
    })
  }
  const kept = new Set(sites.map((site) => site.id))
  for (const name of await confNames(layout.nginx.sites))
    if (!kept.has(name)) strays.push({ kind: 'server-block', name })
  // A site's PHP-FPM master has a folder of its own (its configuration, log, pid); one of no site is a stray, and so
  // is a pool left in the shared master of earlier runtimes (its idle pool, `_idle`, is nobody's).
  for (const name of await readdir(layout.php.sites).catch(() => [] as string[]))
    if (!kept.has(name) && !name.startsWith('.')) strays.push({ kind: 'pool', name })
  for (const name of await confNames(layout.php.shared.pools))
    if (!kept.has(name) && !name.startsWith('_')) strays.push({ kind: 'pool', name })
  const services: Record<string, { ids: readonly string[] }> = {}
  for (const service of core.parts().services) {
    const held = await service.inventory?.()
    if (held) services[service.name] = held
  }
  return { sites, strays, services }
}
