// The site runtime: a node's sites served by an nginx and a PHP-FPM of its own (a Unix user, home, pool and server
// block per site, and its certificate over HTTPS), or, where they are not installed, the sites' files laid out
// only. Each part has its file; this one says which operation is which.

import { join } from 'node:path'
import { checkChallenge, putChallengeFile, removeChallengeFile } from './acme-challenges.ts'
import { acrossProcesses } from './lock.ts'
import { capabilitiesOf, diskOf, inventoryOf, reportOf, trafficOf } from './node-readings.ts'
import { startServices } from './node-services.ts'
import { readinessOf } from './readiness.ts'
import { runtimeCore } from './runtime-core.ts'
import { nodeCalls, siteCalls } from './site-calls.ts'
import { applySite, removeSite, restoreGroup, restoreGroups } from './site-changes.ts'
import { settleSiteDisks } from './site-disk-start.ts'
import { siteHttps } from './site-https.ts'
import { siteResources } from './site-resources.ts'
import type { RuntimeSettings, SiteRuntime } from './site-runtime.ts'

/** How often a watched runtime looks whether its masters still run (reading two pid files and /proc). */
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
  /**
   * The masters started together, PHP-FPM before the nginx that sends to it; answers the leftovers ended. With
   * `disks`, every site's filesystem is mounted (and plain homes with a quota moved onto theirs) first, once the
   * data directory is known to be the runtime's own.
   */
  const start = async (disks = false): Promise<number[]> => {
    try {
      const stack = await core.serving()
      if (disks)
        await settleSiteDisks(core, (site, signal) =>
          siteLocked(site.id, () => applySite(core, site, 'keep', signal)),
        )
      if (!stack) return []
      // Once per process (every changing operation starts the runtime first): groups are lost only with the machine.
      restored ??= restoreGroups(core).catch((error) => {
        restored = null
        throw error
      })
      await restored
      // Closed before the sites' code runs again.
      await core.network.apply()
      // A stop() queued before this start (the watch's) wins: nothing is started after it.
      const ended = await core.locked(() =>
        acrossProcesses(mastersLock, async () =>
          wanted ? [...(await stack.phpFpm.start()), ...(await stack.nginx.start())] : [],
        ),
      )
      lastFailure = null
      return ended
    } catch (error) {
      lastFailure = (error as Error).message
      throw error
    }
  }
  return {
    capabilities: async () => capabilitiesOf(core, await readiness()),
    readiness,
    async start() {
      wanted = true
      // Every site's filesystem mounted (and plain homes moved onto theirs) before anything serves them.
      await start(true)
    },
    async stop() {
      wanted = false
      const stack = await core.servingStack()
      if (!stack) return
      await core.locked(() =>
        acrossProcesses(mastersLock, async () => {
          await stack.nginx.stop()
          await stack.phpFpm.stop()
        }),
      )
      await core.network.remove()
    },
    watch(log) {
      let busy = false
      let failing = ''
      // After a failed start (the port taken by another program), tried again less and less often: up to a minute.
      let pause = 0
      let notBefore = 0
      const look = async () => {
        const stack = wanted ? await core.servingStack()?.catch(() => null) : null
        if (!stack || (stack.nginx.running() !== null && stack.phpFpm.running() !== null)) return
        if (Date.now() < notBefore) return
        const down = [stack.phpFpm, stack.nginx].filter((master) => master.running() === null)
        try {
          const ended = await start()
          failing = ''
          pause = 0
          log(
            'warn',
            { masters: down.map((master) => master.spec.name), ended },
            `${down.map((master) => master.spec.name).join(' and ')} had stopped (killed?): ${ended.length} leftover processes ended, started again`,
          )
        } catch (error) {
          // Said once per reason, not every two seconds.
          if (String(error) !== failing)
            log(
              'error',
              { err: String(error) },
              'the sites’ masters had stopped and could not be started again',
            )
          failing = String(error)
          pause = Math.min(Math.max(pause * 2, watchEveryMs), 60_000)
          notBefore = Date.now() + pause
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
      await core.network.apply({ log })
      return stop
    },
    report: (site) => reportOf(core, site),
    inventory: () => inventoryOf(core),
    disk: () => diskOf(core),
    traffic: () => trafficOf(core),
    resources: (siteIds) => resources.read(siteIds),
  }
}
