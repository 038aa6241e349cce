// What every part of the site runtime shares: its paths, the programs it found, whether it serves, its locks, the
// serving stack (made once, when it first serves), and the checked change of a master's configuration.

import { join } from 'node:path'
import type { LimitEnforcement, SiteApplication, SiteSpec } from '../contract.ts'
import { type Binaries, findBinaries } from './binaries.ts'
import type { ConfiguredMaster } from './configured-master.ts'
import { type RuntimeLayout, runtimeLayout, type SiteLayout } from './layout.ts'
import { serialized } from './lock.ts'
import { serverBlock } from './server-block.ts'
import { createServingStack, type ServingStack } from './serving-stack.ts'
import { certificateFiles } from './site-certificates.ts'
import { diskEnforcement } from './site-disks.ts'
import { type SiteGroups, siteGroups } from './site-groups.ts'
import { type SiteNetwork, siteNetwork } from './site-network.ts'
import type { RuntimeParts, RuntimeSettings } from './site-runtime.ts'
import { servesPhp } from './site-serving.ts'
import type { SiteState } from './site-state.ts'

/** How a site is served: what its server block is written from. */
export type Served = Pick<SiteState, 'state' | 'app' | 'certificate'>

/** The runtime's shared state and steps. */
export interface RuntimeCore {
  readonly settings: RuntimeSettings
  readonly layout: RuntimeLayout
  readonly binaries: Binaries
  /** What the node's modules add, read at each use. */
  parts(): RuntimeParts
  /** Whether nginx and PHP-FPM serve the sites (installed, and not told to lay out files only). */
  readonly servable: boolean
  /** Whether it runs as root. */
  readonly root: boolean
  /** Whether each site gets a Unix user of its own (it serves and runs as root). */
  readonly unixUsers: boolean
  /**
   * A cgroup per site, where every process of the site runs (placed as root before it drops to the site's user):
   * made where sites get Unix users; elsewhere none, and its `enforcement()` says why.
   */
  readonly groups: SiteGroups
  /** The closure of the node's own addresses to its sites' processes. */
  readonly network: SiteNetwork
  /** Runs `task` after every change of the masters' configuration queued before it. */
  locked<T>(task: () => Promise<T>): Promise<T>
  /**
   * Runs `task` after every operation on the site queued before it: a certificate installed while the site is
   * provisioned must not be lost to the provisioning's record of the state it read before.
   */
  siteLocked<T>(siteId: string, task: () => Promise<T>): Promise<T>
  /** The serving stack, or null when the runtime lays out files only. */
  servingStack(): Promise<ServingStack> | null
  /** The serving stack with its main configuration written, or null when files are only laid out. */
  serving(): Promise<ServingStack | null>
  /** Writes (or removes) one configuration file of nginx, checked, then reloads it: one change at a time. */
  change(master: ConfiguredMaster, path: string, content: string | null, signal: AbortSignal): Promise<void>
  /** The site's server block for its state, application and certificate (a fingerprint, or null). */
  blockOf(site: SiteSpec, paths: SiteLayout, stack: ServingStack | null, served: Served): string
  /** The application of `kind` the node's modules offer, or undefined. */
  applicationOf(kind: string): SiteApplication | undefined
  /** Whether sites' disk quotas are enforced (an ext4 image per site), probed once; or why not. */
  diskEnforcement(): Promise<LimitEnforcement>
}

/** The core over `settings.dataDir`; throws when the directory cannot be named in nginx's or PHP-FPM's files. */
export function runtimeCore(settings: RuntimeSettings): RuntimeCore {
  const layout = runtimeLayout(settings.dataDir)
  const binaries = findBinaries()
  const parts = settings.parts ?? (() => ({ services: [], applications: [] }))
  const { nginx, phpFpm } = binaries
  const servable = !settings.filesOnly && nginx !== null && phpFpm !== null
  const root = process.getuid?.() === 0
  const locked = <T>(task: () => Promise<T>) => serialized(layout.dataDir, task)
  const unixUsers = servable && root
  const groups = siteGroups(
    layout.dataDir,
    unixUsers
      ? null
      : root
        ? 'the node lays out files only: no site process runs as a site of its own'
        : 'the node does not run as root, so it makes no cgroup per site',
  )

  let stack: Promise<ServingStack> | null = null
  const servingStack = (): Promise<ServingStack> | null => {
    if (!servable || nginx === null || phpFpm === null) return null
    const ports = { httpPort: settings.httpPort, httpsPort: settings.httpsPort }
    // A site's PHP-FPM master starts inside the site's groups: its workers are born there.
    const enter = (siteId: string, argv: readonly string[]) => groups.enter(siteId, argv)
    stack ??= createServingStack({ ...binaries, nginx, phpFpm }, layout, ports, root, enter).catch(
      (error) => {
        stack = null
        throw error
      },
    )
    return stack
  }
  const applicationOf = (kind: string) =>
    parts().applications.find((application) => application.kind === kind)

  const network = siteNetwork({
    dataDir: layout.dataDir,
    sitesDir: layout.sites,
    servicePortsFile: layout.servicePorts,
    servicesDir: join(layout.dataDir, 'services'),
    unixUsers: servable && root,
    servable,
    root,
    httpPort: settings.httpPort,
    httpsPort: settings.httpsPort,
    panelHost: settings.panelHost,
    resolvConf: settings.resolvConf,
    services: () => parts().services,
  })

  return {
    settings,
    layout,
    binaries,
    parts,
    servable,
    root,
    unixUsers,
    groups,
    network,
    locked,
    siteLocked: (siteId, task) => serialized(`${layout.dataDir}#site:${siteId}`, task),
    servingStack,
    async serving() {
      const ready = await servingStack()
      if (ready) await locked(() => ready.prepare())
      return ready
    },
    change: (master, path, content, signal) =>
      locked(async () => {
        await master.put(path, content, signal)
        await master.applyPending()
      }),
    blockOf: (site, paths, stack, served) =>
      serverBlock(site, {
        layout,
        paths,
        httpPort: settings.httpPort,
        httpsPort: settings.httpsPort,
        ipv6: stack?.ipv6 ?? false,
        state: served.state,
        php: stack !== null && servesPhp(site),
        fallback: served.app ? (applicationOf(served.app.kind)?.fallback ?? null) : null,
        certificate: served.certificate === null ? null : certificateFiles(paths, served.certificate),
      }),
    applicationOf,
    diskEnforcement: () =>
      diskEnforcement(layout, {
        root,
        serving: servable && root,
        setup: settings.setupCommand ?? 'npm run agent -- setup',
      }),
  }
}
