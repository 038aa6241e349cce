// The built-in `local` node driver: the site runtime in the panel's own process, on the machine the panel runs on.
// Given a port it serves the sites (nginx and PHP-FPM of its own, when installed); without one it lays out their
// files only, under `<dataDir>/sites/<site id>/`.

import type { AcmeChallenge, Node, NodeDriver, NodeService, SiteCertificate, SiteSpec } from '../contract.ts'
import { createSiteRuntime } from '../runtime/create-site-runtime.ts'
import type { SiteRuntime } from '../runtime/site-runtime.ts'

export { checkSiteSpec } from '../runtime/site-spec.ts'

/** Options of {@link createLocalDriver}. */
export interface LocalDriverOptions {
  /**
   * The runtime's data directory: sites' homes in `<dataDir>/sites/<site id>/`, nginx's and PHP-FPM's files in
   * `<dataDir>/nginx/` and `<dataDir>/php/`. To serve, one of its own that other users may pass through (not the
   * panel's 0700 data directory): the runtime refuses to serve from one they cannot reach.
   */
  readonly dataDir: string
  /**
   * Where the sites' nginx listens (`SITES_HTTP_PORT`, e.g. 80). Given: the driver serves the sites whenever nginx
   * and PHP-FPM are installed. Absent (the default): it lays out their files only.
   */
  readonly httpPort?: number
  /** Where it will listen for HTTPS (`SITES_HTTPS_PORT`). Default 443. */
  readonly httpsPort?: number
  /** The services it offers its sites, read at each call (the plugins' `nodes.services`). */
  readonly services?: () => readonly NodeService[]
}

/** The `local` driver, with the runtime under it (the panel starts it at start-up and reads its traffic). */
export interface LocalDriver extends NodeDriver {
  readonly runtime: SiteRuntime
}

/** The `local` driver over `options.dataDir`. Throws if the directory could not be named safely in nginx. */
export function createLocalDriver(options: LocalDriverOptions): LocalDriver {
  const serve = options.httpPort !== undefined
  const runtime = createSiteRuntime({
    dataDir: options.dataDir,
    httpPort: options.httpPort ?? 80,
    httpsPort: options.httpsPort ?? 443,
    filesOnly: !serve,
    ...(options.services ? { services: options.services } : {}),
  })
  // Started before every change (a no-op once it runs): masters that died, or never started, serve again.
  const started = () => (serve ? runtime.start() : Promise.resolve())
  /** The runtime's operation, after the masters are started; the node argument is this machine. */
  const change =
    <A extends unknown[]>(operation: (...args: A) => Promise<void>) =>
    async (_node: Node, ...args: A) => {
      await started()
      await operation(...args)
    }
  return {
    name: 'local',
    description: serve
      ? 'Sites on the machine the panel runs on, served by its own nginx and PHP-FPM.'
      : 'Sites on the machine the panel runs on: their files and nginx server blocks, not served.',
    runtime,
    provision: change((site: SiteSpec, signal: AbortSignal) => runtime.provision(site, signal)),
    update: change((site: SiteSpec, signal: AbortSignal) => runtime.update(site, signal)),
    suspend: change((site: SiteSpec, signal: AbortSignal) => runtime.suspend(site, signal)),
    unsuspend: change((site: SiteSpec, signal: AbortSignal) => runtime.unsuspend(site, signal)),
    delete: change((site: SiteSpec, signal: AbortSignal) => runtime.delete(site, signal)),
    report: (_node, site) => runtime.report(site),
    installCertificate: change((siteId: string, certificate: SiteCertificate, signal: AbortSignal) =>
      runtime.installCertificate(siteId, certificate, signal),
    ),
    removeCertificate: change((siteId: string, signal: AbortSignal) =>
      runtime.removeCertificate(siteId, signal),
    ),
    putChallenge: change((challenge: AcmeChallenge, signal: AbortSignal) =>
      runtime.putChallenge(challenge, signal),
    ),
    removeChallenge: change((token: string, signal: AbortSignal) => runtime.removeChallenge(token, signal)),
    call: (_node, call, signal) => runtime.call(call, signal),
  }
}
