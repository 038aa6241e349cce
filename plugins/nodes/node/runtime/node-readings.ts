// What the node says of itself and its sites: what it can run, a site's state, what every site takes on disk, and
// what each served since the last reading.

import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { NodeReadiness, SiteReport, SiteSpec } from '../contract.ts'
import { readAccessLogs } from './access-logs.ts'
import { versionsOf } from './binaries.ts'
import { lacksOf } from './capabilities.ts'
import { directoryBytes } from './disk-usage.ts'
import { siteLayout } from './layout.ts'
import { serialized } from './lock.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { existingKind } from './site-home.ts'
import type { RuntimeCapabilities, SiteDisk, TrafficReading } from './site-runtime.ts'
import { readSiteState } from './site-state.ts'

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
    unixUsers: core.unixUsers,
    mode: servable ? 'serving' : 'files-only',
    applications: Object.fromEntries(
      probed.flatMap(({ kind, probe }) => ('version' in probe && servable ? [[kind, probe.version]] : [])),
    ),
    services: Object.fromEntries(
      await Promise.all(services.map(async (service) => [service.name, (await service.describe?.()) ?? {}])),
    ),
    missing: lacksOf(binaries, probed, {
      filesOnly: settings.filesOnly === true,
      root: core.root,
      dataDir: core.layout.dataDir,
    }),
    setup: settings.setupCommand ?? 'npm run agent -- setup',
    readiness,
  }
}

/** The site's state, the bytes its home takes and the fingerprint of the certificate it serves (null: none). */
export async function reportOf(core: RuntimeCore, site: SiteSpec): Promise<SiteReport> {
  const paths = siteLayout(core.layout, site)
  if ((await existingKind(paths.home)) === 'absent')
    return { state: 'absent', diskBytes: 0, certificate: null }
  const state = await readSiteState(paths.state)
  return {
    state: state?.state ?? 'absent',
    diskBytes: await directoryBytes(paths.home),
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

/** What every site on the node takes on disk now (homes walked without following links out of them). */
export async function diskOf(core: RuntimeCore): Promise<readonly SiteDisk[]> {
  const found: SiteDisk[] = []
  for (const siteId of await siteIds(core))
    found.push({ siteId, bytes: await directoryBytes(join(core.layout.sites, siteId)) })
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
