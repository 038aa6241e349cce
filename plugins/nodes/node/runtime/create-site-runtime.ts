// The site runtime: a node's sites served by an nginx and a PHP-FPM of its own (a Unix user, home, pool and server
// block per site, and its certificate over HTTPS), or, where they are not installed, the sites' files laid out
// only. Each part has its file; this one says which operation is which.

import { join } from 'node:path'
import { checkChallenge, putChallengeFile, removeChallengeFile } from './acme-challenges.ts'
import { acrossProcesses } from './lock.ts'
import { defaultRotation, rotateLog, signalIfRunning } from './log-rotation.ts'
import { reloadMaster } from './masters.ts'
import { capabilitiesOf, diskOf, inventoryOf, reportOf, trafficOf } from './node-readings.ts'
import { startServices } from './node-services.ts'
import { createSharedPhpFpm } from './php-fpm.ts'
import { moveOffSharedMaster } from './php-upgrade.ts'
import { readinessOf } from './readiness.ts'
import { runtimeCore } from './runtime-core.ts'
import type { ServingStack } from './serving-stack.ts'
import { nodeCalls, siteCalls } from './site-calls.ts'
import { applySite, removeSite, restoreGroup, restoreGroups } from './site-changes.ts'
import { settleSiteDisks } from './site-disk-start.ts'
import { siteHttps } from './site-https.ts'
import { rotateSiteLogs } from './site-log-rotation.ts'
import {
  activeSites,
  type SiteMastersStarted,
  sitesDown,
  startSiteMasters,
  stopSiteMasters,
} from './site-masters.ts'
import { siteResources } from './site-resources.ts'
import type { RuntimeSettings, SiteRuntime } from './site-runtime.ts'

/** How often a watched runtime looks whether its masters still run (reading their pid files and /proc). */
const watchEveryMs = 2_000
/** How often a watched runtime looks whether its sites' network table is still loaded as it should be. */
const networkEveryMs = 30_000
/** How often a watched runtime adds its sites' limit hits to the hour's counts (a few files read per site). */
const sampleHitsEveryMs = 10 * 60_000

/**
 * The runtime over `settings.dataDir`. Throws at once when the directory cannot be named in nginx's or PHP-FPM's
 * files. Serves (`capabilities().mode === 'serving'`) when nginx and PHP-FPM are installed and `filesOnly` is not
 * set; makes a Unix user per site when it also runs as root.
 */
export function createSiteRuntime(settings: RuntimeSettings): SiteRuntime {
  const core = runtimeCore(settings)
  const { layout, siteLocked } = core
  /** Held while the masters start or stop, across processes (two panel instances on one data directory). */
  const mastersLock = join(layout.dataDir, 'masters.lock')
  const https = siteHttps(core)
  const services = () => core.parts().services
  const resources = siteResources(core)
  const groups = {
    enter: core.groups.enter,
    restore: (siteId: string) => restoreGroup(core, siteId),
  }
  /** Whether the masters should run: since start(), until stop(). A watch starts again only what should run. */
  let wanted = false
  // What the last start of the masters threw (the watch's too), told in the node's readiness until one succeeds.
  let lastFailure: string | null = null
  /** The sites' groups made again from their `state.json`, at the first start. */
  let restored: Promise<void> | null = null
  const readiness = () => readinessOf(core, lastFailure)
  const rotation = settings.logRotation ?? defaultRotation
  /**
   * nginx, then each active site's PHP-FPM master (the sites of a shared master moved to their own first); answers
   * the leftovers ended. A site whose master will not start is that site's failure: the others start, the node
   * serves, and the watch tries the site again. With `disks`, every site's filesystem is mounted (and plain homes
   * with a quota moved onto theirs) first, once the data directory is known to be the runtime's own.
   */
  const start = async (disks = false): Promise<{ ended: number[]; failed: SiteMastersStarted['failed'] }> => {
    let stack: ServingStack | null
    try {
      stack = await core.serving()
      if (disks)
        await settleSiteDisks(core, (site, signal) =>
          siteLocked(site.id, () => applySite(core, site, 'keep', signal)),
        )
      if (!stack) return { ended: [], failed: [] }
      const serving = stack
      // The sites' groups first (their masters start inside them), once per process (every changing operation
      // starts the runtime first): groups are lost only with the machine.
      restored ??= restoreGroups(core).catch((error) => {
        restored = null
        throw error
      })
      await restored
      // Closed before the sites' code runs again.
      await core.network.apply()
      // A stop() queued before this start (the watch's) wins: nothing is started after it.
      const ended = await core.locked(() =>
        acrossProcesses(mastersLock, async () => (wanted ? await serving.nginx.start() : [])),
      )
      lastFailure = null
      if (!wanted) return { ended, failed: [] }
      const moved = await moveOffSharedMaster(core, serving)
      const sites = await startSiteMasters(core, serving, wanted ? await sitesDown(core, serving) : [])
      return { ended: [...ended, ...sites.ended], failed: [...moved.failed, ...sites.failed] }
    } catch (error) {
      lastFailure = (error as Error).message
      throw error
    }
  }
  /** Rotates nginx's error log, every site's logs and every site master's log past their size or age (log-rotation.ts). */
  const rotateLogs = async (stack: ServingStack) => {
    // nginx's logs are in folders its workers cannot open (root's): after a rotation nginx is reloaded (its master
    // opens them, new workers inherit them) rather than told to reopen (SIGUSR1), which its workers would fail.
    let reload = false
    const rotated = () => {
      reload = true
    }
    try {
      await rotateLog(layout.nginx.errorLog, rotated, rotation)
      await rotateSiteLogs(layout.sites, rotated, rotation)
    } finally {
      const pid = stack.nginx.running()
      if (reload && pid !== null) await core.locked(() => reloadMaster(stack.nginx.spec, pid))
    }
    for (const site of await activeSites(core)) {
      const master = stack.siteMaster(site.paths, site.user)
      await rotateLog(
        site.paths.fpm.log,
        () => {
          const pid = master.running()
          signalIfRunning(pid === null ? null : (master.spec.signalled?.(pid) ?? null), 'SIGUSR1')
        },
        rotation,
      )
    }
  }
  return {
    capabilities: async () => capabilitiesOf(core, await readiness()),
    readiness,
    async start() {
      wanted = true
      // Every site's filesystem mounted (and plain homes moved onto theirs) before anything serves them; a site
      // whose master did not start is tried again, and said, by the watch.
      await start(true)
    },
    async stop() {
      wanted = false
      const stack = await core.servingStack()
      if (!stack) return
      await core.locked(() => acrossProcesses(mastersLock, () => stack.nginx.stop()))
      await stopSiteMasters(core, stack)
      // A node whose move off the shared master did not finish still runs it.
      await createSharedPhpFpm({ binary: stack.phpSettings.binary, layout }).stop()
      await core.network.remove()
    },
    watch(log) {
      let busy = false
      let failing = ''
      // After a failed start (the port taken by another program), tried again less and less often: up to a minute.
      let pause = 0
      let notBefore = 0
      /** What each site's last failed start said (told once per reason), and when it is tried again. */
      const siteFailing = new Map<string, { error: string; pause: number; notBefore: number }>()
      let lastRotation = 0
      const look = async () => {
        const stack = wanted ? await core.servingStack()?.catch(() => null) : null
        if (!stack) return
        if (Date.now() - lastRotation >= (rotation.everyMs ?? 60_000)) {
          lastRotation = Date.now()
          await rotateLogs(stack).catch((error) =>
            log('error', { err: String(error) }, 'rotating the logs failed'),
          )
        }
        if (stack.nginx.running() === null && Date.now() >= notBefore) {
          try {
            const ended = await core.locked(() =>
              acrossProcesses(mastersLock, async () => (wanted ? await stack.nginx.start() : [])),
            )
            lastFailure = null
            failing = ''
            pause = 0
            log(
              'warn',
              { masters: ['nginx'], ended },
              `nginx had stopped (killed?): ${ended.length} leftover processes ended, started again`,
            )
          } catch (error) {
            lastFailure = (error as Error).message
            // Said once per reason, not every two seconds.
            if (String(error) !== failing)
              log(
                'error',
                { err: String(error) },
                'the sites’ nginx had stopped and could not be started again',
              )
            failing = String(error)
            pause = Math.min(Math.max(pause * 2, watchEveryMs), 60_000)
            notBefore = Date.now() + pause
          }
        }
        const down = (await sitesDown(core, stack)).filter(
          (site) => Date.now() >= (siteFailing.get(site.id)?.notBefore ?? 0),
        )
        if (down.length === 0 || !wanted) return
        const { ended, failed } = await startSiteMasters(core, stack, down)
        const failedIds = new Set(failed.map((failure) => failure.siteId))
        const repaired = down.filter((site) => !failedIds.has(site.id)).map((site) => site.id)
        for (const id of repaired) siteFailing.delete(id)
        if (repaired.length > 0)
          log(
            'warn',
            { sites: repaired, ended },
            `${repaired.length} sites' PHP-FPM had stopped (killed?): started again`,
          )
        for (const failure of failed) {
          const before = siteFailing.get(failure.siteId)
          if (before?.error !== failure.error)
            log(
              'error',
              failure,
              `site ${failure.siteId}'s PHP-FPM had stopped and could not be started again`,
            )
          const sitePause = Math.min(Math.max((before?.pause ?? 0) * 2, watchEveryMs), 60_000)
          siteFailing.set(failure.siteId, {
            error: failure.error,
            pause: sitePause,
            notBefore: Date.now() + sitePause,
          })
        }
      }
      const timer = setInterval(() => {
        if (busy) return
        busy = true
        void look().finally(() => {
          busy = false
        })
      }, watchEveryMs)
      timer.unref?.()
      // Hits are counted by the hour they were read in: read often enough that the last 24 hours mean that.
      const sampling = setInterval(() => {
        void resources
          .sample()
          .catch((error) => log('warn', { err: String(error) }, 'the sites’ limit hits could not be read'))
      }, sampleHitsEveryMs)
      sampling.unref?.()
      // The sites' network table looked at less often: loaded again when a firewall's reload flushed it, or what the
      // sites may reach changed (the database server came up late, the resolvers changed).
      const network = setInterval(() => {
        if (wanted) void core.network.apply({ check: true, log })
      }, networkEveryMs)
      network.unref?.()
      return () => {
        clearInterval(timer)
        clearInterval(sampling)
        clearInterval(network)
      }
    },
    provision: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'keep', signal)),
    update: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'keep', signal)),
    suspend: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'suspended', signal)),
    unsuspend: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'active', signal)),
    delete: (site, signal) =>
      siteLocked(site.id, async () => {
        await removeSite(core, site, signal)
        resources.forget(site.id)
      }),
    installCertificate: https.installCertificate,
    removeCertificate: https.removeCertificate,
    async putChallenge(challenge, signal) {
      checkChallenge(challenge)
      // The data directory made (and opened to nginx's workers) before the answer goes in it.
      await core.serving()
      await putChallengeFile(layout, challenge, signal)
    },
    removeChallenge: (token, signal) => removeChallengeFile(layout, token, signal),
    call: siteCalls(layout, groups, services),
    nodeCall: nodeCalls(services),
    async startServices(log, only = services()) {
      const stop = await startServices(layout, groups, only, log)
      // The ports they serve the sites on (the database server's) are known once they started.
      await core.network.apply({ log, servicesStarted: true })
      return stop
    },
    report: (site) => reportOf(core, site),
    inventory: () => inventoryOf(core),
    disk: () => diskOf(core),
    traffic: () => trafficOf(core),
    resources: (siteIds) => resources.read(siteIds),
  }
}
