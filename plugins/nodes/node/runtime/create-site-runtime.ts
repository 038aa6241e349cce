// The site runtime: a node's sites served by an nginx and a PHP-FPM of its own (a Unix user, home, pool and server
// block per site, and its certificate over HTTPS), or, where they are not installed, the sites' files laid out
// only. Every operation is a series of steps that are each safe to stop anywhere and to repeat.

import { chmod, mkdir, readdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { NodeFailure, type SiteApplication, type SiteReport, type SiteSpec } from '../contract.ts'
import { readAccessLogs } from './access-logs.ts'
import { checkChallenge, putChallengeFile, removeChallengeFile } from './acme-challenges.ts'
import { applicationSite } from './application-site.ts'
import {
  type FileOwner,
  removeAbandonedTemporaries,
  writeFileAtomic,
  writeFileIfAbsent,
} from './atomic-files.ts'
import { findBinaries, versionsOf } from './binaries.ts'
import { lacksOf } from './capabilities.ts'
import type { ConfiguredMaster } from './configured-master.ts'
import { directoryBytes } from './disk-usage.ts'
import { runtimeLayout, type SiteLayout, siteLayout } from './layout.ts'
import { serialized } from './lock.ts'
import { poolConfig } from './php-fpm.ts'
import { placeholderMarker, placeholderPage } from './placeholder.ts'
import { serverBlock } from './server-block.ts'
import { createServingStack, type ServingStack } from './serving-stack.ts'
import { nodeCalls, nodeSiteOf, siteCalls } from './site-calls.ts'
import { certificateFiles } from './site-certificates.ts'
import { ensureHome, existingKind, readSiteFile } from './site-home.ts'
import { type Served, siteHttps } from './site-https.ts'
import type {
  RuntimeCapabilities,
  RuntimeSettings,
  SiteDisk,
  SiteRuntime,
  TrafficReading,
} from './site-runtime.ts'
import { readSiteState, type SiteState, siteState, stateFile } from './site-state.ts'
import { endProcessesOf, ensureSiteUser, removeSiteUser, type UnixUser } from './unix-users.ts'

/**
 * The runtime over `settings.dataDir`. Throws at once when the directory cannot be named in nginx's or PHP-FPM's
 * files. Serves (`capabilities().mode === 'serving'`) when nginx and PHP-FPM are installed and `filesOnly` is not
 * set; makes a Unix user per site when it also runs as root.
 */
export function createSiteRuntime(settings: RuntimeSettings): SiteRuntime {
  const layout = runtimeLayout(settings.dataDir)
  const binaries = findBinaries()
  const parts = settings.parts ?? (() => ({ services: [], applications: [] }))
  const { nginx, phpFpm } = binaries
  const servable = !settings.filesOnly && nginx !== null && phpFpm !== null
  const root = process.getuid?.() === 0
  const unixUsers = servable && root
  const locked = <T>(task: () => Promise<T>) => serialized(layout.dataDir, task)
  // One operation on a site at a time (in this process): a certificate installed while the site is provisioned must
  // not be lost to the provisioning's record of the state it read before.
  const siteLocked = <T>(siteId: string, task: () => Promise<T>) =>
    serialized(`${layout.dataDir}#site:${siteId}`, task)

  let stack: Promise<ServingStack> | null = null
  /** The serving stack, or null when the runtime lays out files only. */
  function servingStack(): Promise<ServingStack> | null {
    if (!servable) return null
    const ports = { httpPort: settings.httpPort, httpsPort: settings.httpsPort }
    stack ??= createServingStack({ ...binaries, nginx, phpFpm }, layout, ports, root).catch((error) => {
      stack = null
      throw error
    })
    return stack
  }
  /** The serving stack with its main configuration written, or null when the runtime lays out files only. */
  async function serving(): Promise<ServingStack | null> {
    const ready = await servingStack()
    if (ready) await locked(() => ready.prepare())
    return ready
  }

  /** Writes (or removes) one configuration file of a master, checked, then reloads it: one change at a time. */
  const change = (master: ConfiguredMaster, path: string, content: string | null, signal: AbortSignal) =>
    locked(async () => {
      await master.put(path, content, signal)
      await master.applyPending()
    })

  /** The site's server block for its state, application and certificate (a fingerprint, or null). */
  const blockOf = (site: SiteSpec, paths: SiteLayout, stack: ServingStack | null, served: Served) =>
    serverBlock(site, {
      layout,
      paths,
      httpPort: settings.httpPort,
      httpsPort: settings.httpsPort,
      ipv6: stack?.ipv6 ?? false,
      state: served.state,
      php: stack !== null,
      fallback: served.app ? (applicationOf(served.app.kind)?.fallback ?? null) : null,
      certificate: served.certificate === null ? null : certificateFiles(paths, served.certificate),
    })
  const https = siteHttps({ layout, serving, locked, siteLocked, blockOf })
  const call = siteCalls(layout, () => parts().services)
  const nodeCall = nodeCalls(() => parts().services)

  /** The application of `kind` the node's modules offer, or undefined. */
  function applicationOf(kind: string): SiteApplication | undefined {
    return parts().applications.find((application) => application.kind === kind)
  }

  /** The placeholder of a static site: written once, renamed with the domain, never over the customer's page. */
  async function placeholder(
    site: SiteSpec,
    paths: SiteLayout,
    previous: SiteState | null,
    owner: FileOwner | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const page = placeholderPage(site)
    const created = await writeFileIfAbsent(paths.placeholder, page, signal, 0o644, owner)
    if (created || !previous || previous.domain === site.domain) return
    if ((await readSiteFile(paths.placeholder))?.includes(placeholderMarker))
      await writeFileAtomic(paths.placeholder, page, signal, 0o644, owner)
  }

  /**
   * The site's application (its spec's, or the one installed before) applied: installed unless it is, each stage
   * recorded so a repeat goes on from the last; once installed, a changed spec is carried to it.
   */
  async function application(
    site: SiteSpec,
    paths: SiteLayout,
    previous: SiteState | null,
    user: UnixUser | null,
    record: (app: SiteState['app']) => Promise<void>,
    signal: AbortSignal,
  ): Promise<SiteState['app']> {
    const kind = site.app?.kind ?? previous?.app?.kind ?? ''
    const app = applicationOf(kind)
    if (!app)
      throw new NodeFailure(
        `Site ${site.id} runs ${kind}, which no module of this node installs`,
        'application_unavailable',
      )
    const stage = previous?.app?.kind === kind ? previous.app.stage : null
    const target = applicationSite(site, paths, previous, user, binaries)
    const reached = await app.apply(
      target,
      site.app?.settings,
      stage,
      (next) => record({ kind, stage: next }),
      signal,
    )
    return { kind, stage: reached }
  }

  /**
   * Makes the site match `site` in state `wanted` (`keep`: the state it has, `active` for a new one): user, home,
   * content, pool, server block, then state. Going active the pool comes before the block that sends to it;
   * suspending, the block answers 503 before the pool goes.
   */
  async function apply(site: SiteSpec, wanted: SiteState['state'] | 'keep', signal: AbortSignal) {
    signal.throwIfAborted()
    const paths = siteLayout(layout, site)
    const stack = await serving()
    await mkdir(layout.sites, { recursive: true })
    await mkdir(layout.nginx.sites, { recursive: true })
    await existingKind(paths.home)
    const previous = await readSiteState(paths.state)
    const user =
      unixUsers && stack
        ? await locked(() => ensureSiteUser(previous?.unixUser ?? paths.user, paths.home, site.id))
        : null
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
        stateFile(siteState(site, state, user?.name ?? null, app, certificate)),
        signal,
        0o600,
      )

    let app = previous?.app ?? null
    if (stack && (site.app || app)) app = await application(site, paths, previous, user, record, signal)
    else
      await placeholder(
        site,
        paths,
        previous,
        user && web ? { uid: user.uid, gid: web.gid } : undefined,
        signal,
      )

    const block = blockOf(site, paths, stack, { state, app, certificate })
    if (stack) {
      const pool =
        state === 'active'
          ? poolConfig(site, { paths, unixUser: user?.name ?? null, webUser: web?.name ?? null })
          : null
      if (pool) await change(stack.phpFpm, paths.pool, pool, signal)
      await change(stack.nginx, paths.serverBlock, block, signal)
      if (!pool) {
        await change(stack.phpFpm, paths.pool, null, signal)
        await rm(paths.socket, { force: true })
        // What the site's code started outside its pool ends with it.
        if (user) await endProcessesOf(user)
      }
    } else await writeFileAtomic(paths.serverBlock, block, signal)
    await record(app)
  }

  /** Removes pool, server block, Unix user, certificate, files and logs: unserved first, files last. */
  async function remove(site: SiteSpec, signal: AbortSignal) {
    signal.throwIfAborted()
    const paths = siteLayout(layout, site)
    const stack = await serving()
    const exists = (await existingKind(paths.home)) === 'directory'
    const previous = exists ? await readSiteState(paths.state) : null
    // Unserved first, then its processes and user, then its files: nothing half-deleted is ever served.
    if (stack) {
      await change(stack.nginx, paths.serverBlock, null, signal)
      await change(stack.phpFpm, paths.pool, null, signal)
      await rm(paths.socket, { force: true })
      if (unixUsers) await locked(() => removeSiteUser(previous?.unixUser ?? paths.user, paths.home))
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

  return {
    async capabilities(): Promise<RuntimeCapabilities> {
      const versions = await versionsOf(binaries)
      const { services, applications } = parts()
      const probed = await Promise.all(
        applications.map(async (application) => ({
          kind: application.kind,
          probe: await application.probe(binaries),
        })),
      )
      return {
        ...versions,
        unixUsers,
        mode: servable ? 'serving' : 'files-only',
        applications: Object.fromEntries(
          probed.flatMap(({ kind, probe }) =>
            'version' in probe && servable ? [[kind, probe.version]] : [],
          ),
        ),
        services: Object.fromEntries(
          await Promise.all(
            services.map(async (service) => [service.name, (await service.describe?.()) ?? {}]),
          ),
        ),
        missing: lacksOf(binaries, probed, {
          filesOnly: settings.filesOnly === true,
          root,
          dataDir: layout.dataDir,
        }),
        setup: settings.setupCommand ?? 'npm run agent -- setup',
      }
    },
    async start() {
      const stack = await serving()
      if (!stack) return
      await locked(async () => {
        await stack.phpFpm.start()
        await stack.nginx.start()
      })
    },
    async stop() {
      const stack = await servingStack()
      if (!stack) return
      await locked(async () => {
        await stack.nginx.stop()
        await stack.phpFpm.stop()
      })
    },
    provision: (site, signal) => siteLocked(site.id, () => apply(site, 'keep', signal)),
    update: (site, signal) => siteLocked(site.id, () => apply(site, 'keep', signal)),
    suspend: (site, signal) => siteLocked(site.id, () => apply(site, 'suspended', signal)),
    unsuspend: (site, signal) => siteLocked(site.id, () => apply(site, 'active', signal)),
    delete: (site, signal) => siteLocked(site.id, () => remove(site, signal)),
    installCertificate: https.installCertificate,
    removeCertificate: https.removeCertificate,
    async putChallenge(challenge, signal) {
      checkChallenge(challenge)
      // The data directory made (and opened to nginx's workers) before the answer goes in it.
      await serving()
      await putChallengeFile(layout, challenge, signal)
    },
    removeChallenge: (token, signal) => removeChallengeFile(layout, token, signal),
    call,
    nodeCall,
    async startServices(log, services = parts().services) {
      const stops: (() => Promise<void>)[] = []
      for (const service of services) {
        if (!service.start) continue
        try {
          // Passable by the sites' users (a service may bind files from it into a site's sandbox).
          const own = join(layout.dataDir, 'services', service.name)
          await mkdir(own, { recursive: true, mode: 0o711 })
          await chmod(join(layout.dataDir, 'services'), 0o711)
          stops.push(
            await service.start({
              dataDir: own,
              site: (siteId) => nodeSiteOf(layout, siteId),
              log,
            }),
          )
        } catch (error) {
          log(
            'error',
            { service: service.name, err: String(error) },
            `node service ${service.name} did not start`,
          )
        }
      }
      return async () => {
        for (const stop of stops.reverse()) await stop()
      }
    },
    async report(site): Promise<SiteReport> {
      const paths = siteLayout(layout, site)
      if ((await existingKind(paths.home)) === 'absent')
        return { state: 'absent', diskBytes: 0, certificate: null }
      const state = await readSiteState(paths.state)
      return {
        state: state?.state ?? 'absent',
        diskBytes: await directoryBytes(paths.home),
        certificate: state?.certificate ?? null,
      }
    },
    async disk(): Promise<readonly SiteDisk[]> {
      const found: SiteDisk[] = []
      for (const name of await readdir(layout.sites).catch(() => [] as string[])) {
        if (name.startsWith('.')) continue
        const state = await readSiteState(join(layout.sites, name, 'state.json'))
        if (state?.siteId === name)
          found.push({ siteId: name, bytes: await directoryBytes(join(layout.sites, name)) })
      }
      return found
    },
    traffic: () =>
      serialized(`${layout.dataDir}#traffic`, async (): Promise<TrafficReading[]> => {
        const logs = new Map<string, string>()
        const names = await readdir(layout.sites).catch(() => [] as string[])
        for (const name of names) {
          if (name.startsWith('.')) continue
          const state = await readSiteState(join(layout.sites, name, 'state.json'))
          if (state?.siteId === name) logs.set(name, join(layout.sites, name, 'logs', 'access.log'))
        }
        const counts = await readAccessLogs(logs, layout.trafficOffsets)
        const at = new Date().toISOString()
        return [...counts]
          .filter(([, count]) => count.requests > 0)
          .map(([siteId, count]) => ({ siteId, ...count, at }))
      }),
  }
}
