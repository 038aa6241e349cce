// The site runtime: a node's sites served by an nginx and a PHP-FPM of its own (a Unix user, home, pool and server
// block per site, and its certificate over HTTPS), or, where they are not installed, the sites' files laid out
// only. Each part has its file; this one says which operation is which.

import { checkChallenge, putChallengeFile, removeChallengeFile } from './acme-challenges.ts'
import { capabilitiesOf, diskOf, reportOf, trafficOf } from './node-readings.ts'
import { startServices } from './node-services.ts'
import { readinessOf } from './readiness.ts'
import { runtimeCore } from './runtime-core.ts'
import { nodeCalls, siteCalls } from './site-calls.ts'
import { applySite, removeSite } from './site-changes.ts'
import { siteHttps } from './site-https.ts'
import type { RuntimeSettings, SiteRuntime } from './site-runtime.ts'

/**
 * The runtime over `settings.dataDir`. Throws at once when the directory cannot be named in nginx's or PHP-FPM's
 * files. Serves (`capabilities().mode === 'serving'`) when nginx and PHP-FPM are installed and `filesOnly` is not
 * set; makes a Unix user per site when it also runs as root.
 */
export function createSiteRuntime(settings: RuntimeSettings): SiteRuntime {
  const core = runtimeCore(settings)
  const { layout, siteLocked } = core
  const https = siteHttps(core)
  const services = () => core.parts().services
  /** The masters, started or stopped together: PHP-FPM before the nginx that sends to it. */
  const masters = (action: 'start' | 'stop') => async () => {
    const stack = await (action === 'start' ? core.serving() : core.servingStack())
    if (!stack) return
    await core.locked(async () => {
      if (action === 'start') {
        await stack.phpFpm.start()
        await stack.nginx.start()
      } else {
        await stack.nginx.stop()
        await stack.phpFpm.stop()
      }
    })
  }
  // What the last start of the masters threw, told in the node's readiness until a start succeeds.
  let lastFailure: string | null = null
  const readiness = () => readinessOf(core, lastFailure)
  return {
    capabilities: async () => capabilitiesOf(core, await readiness()),
    readiness,
    async start() {
      try {
        await masters('start')()
        lastFailure = null
      } catch (error) {
        lastFailure = (error as Error).message
        throw error
      }
    },
    stop: masters('stop'),
    provision: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'keep', signal)),
    update: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'keep', signal)),
    suspend: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'suspended', signal)),
    unsuspend: (site, signal) => siteLocked(site.id, () => applySite(core, site, 'active', signal)),
    delete: (site, signal) => siteLocked(site.id, () => removeSite(core, site, signal)),
    installCertificate: https.installCertificate,
    removeCertificate: https.removeCertificate,
    async putChallenge(challenge, signal) {
      checkChallenge(challenge)
      // The data directory made (and opened to nginx's workers) before the answer goes in it.
      await core.serving()
      await putChallengeFile(layout, challenge, signal)
    },
    removeChallenge: (token, signal) => removeChallengeFile(layout, token, signal),
    call: siteCalls(layout, services),
    nodeCall: nodeCalls(services),
    startServices: (log, only = services()) => startServices(layout, only, log),
    report: (site) => reportOf(core, site),
    disk: () => diskOf(core),
    traffic: () => trafficOf(core),
  }
}
