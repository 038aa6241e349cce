// What a node does for its sites, the same code in the panel's process (the `local` driver) and in the node agent
// (`npm run agent`): a Unix user, home, PHP-FPM pool and nginx server block per site (over HTTPS too once it has a
// certificate), and ACME HTTP-01 answers, served by an nginx and a PHP-FPM master of its own with their
// configuration under its data directory, so it never fights a system nginx.

import type {
  AcmeChallenge,
  NodeCapabilities,
  NodeInventory,
  NodeReadiness,
  NodeService,
  NodeServiceCall,
  NodeServiceHost,
  SiteApplication,
  SiteCall,
  SiteCertificate,
  SiteReport,
  SiteResources,
  SiteSpec,
} from '../contract.ts'
import type { RotationPolicy } from './log-rotation.ts'

/** What the node's modules add to the runtime: the services it offers its sites, the applications it installs. */
export interface RuntimeParts {
  readonly services: readonly NodeService[]
  readonly applications: readonly SiteApplication[]
}

/** Where and how a runtime serves. */
export interface RuntimeSettings {
  /** Everything it keeps: nginx and PHP-FPM configuration, pid files, sites' homes (`<dataDir>/sites/<site id>`). */
  readonly dataDir: string
  /** Where its nginx listens for plain HTTP (`SITES_HTTP_PORT`, default 80). */
  readonly httpPort: number
  /**
   * Where its nginx listens for HTTPS (`SITES_HTTPS_PORT`, default 443): sites with a certificate, and a default
   * server refusing the handshake for every other name.
   */
  readonly httpsPort: number
  /**
   * Lay out the sites' files only, even where nginx and PHP-FPM are installed (the panel's own tests, a node whose
   * sites another web server serves). Default false: serve whenever both are installed.
   */
  readonly filesOnly?: boolean
  /** What the node's modules add (services, applications), read at each use. Default none. */
  readonly parts?: () => RuntimeParts
  /** The command that installs what the node lacks, as its capabilities tell it. Default `npm run agent -- setup`. */
  readonly setupCommand?: string
  /**
   * When the watch rotates nginx's error log and the sites' logs (access, error, PHP, PHP-FPM's), and how long and
   * how many it keeps. Default the node's environment's (`LOG_RETENTION_DAYS`, …: see log-rotation.ts).
   */
  readonly logRotation?: RotationPolicy
  /**
   * The panel's host (an agent's `PANEL_URL`'s), closed to the sites' processes with the node's own addresses. The
   * local node's panel listens on the node's addresses: closed with them. Default none.
   */
  readonly panelHost?: string
  /** Where the node's resolvers are named, the only ports of loopback (53) its sites reach besides its own. Default `/etc/resolv.conf`. */
  readonly resolvConf?: string
}

/** What a runtime can run on this machine, as the node reports it. */
export type RuntimeCapabilities = NodeCapabilities

/** Traffic of one site read from its access log since the last reading. */
export interface TrafficReading {
  readonly siteId: string
  readonly requests: number
  readonly bytes: number
  /** ISO time of the reading. */
  readonly at: string
}

/** What one site's home takes on disk. */
export interface SiteDisk {
  readonly siteId: string
  readonly bytes: number
}

/**
 * A node's sites, every operation idempotent (a step repeated after a crash changes nothing) and honouring
 * `signal`. Refusals that repeating cannot fix (an unsafe site spec) are `NodeFailure`s.
 */
export interface SiteRuntime {
  capabilities(): Promise<RuntimeCapabilities>
  /**
   * Whether it serves its sites now (its masters run, or it lays out files only by choice), and why not: read from
   * the masters' pid files and its last start, so cheap to ask every few seconds.
   */
  readiness(): Promise<NodeReadiness>
  /**
   * Starts its nginx and PHP-FPM masters (or finds them running from before); a no-op in `files-only` mode. A start
   * that fails is told in `readiness()` until one succeeds.
   */
  start(): Promise<void>
  /**
   * Stops them (and what killed ones left), and opens the sites' network again (its table deleted): for tests and
   * benchmarks; a node that stops its process leaves its masters, and the closure, as they are. Sites stay on disk.
   */
  stop(): Promise<void>
  /**
   * Watches the masters from start() until stop(): one found not running (killed, or its workers orphaned) is
   * started again within seconds, what it left ended first, and said on `log`. Answers how to stop watching.
   */
  watch(log: NodeServiceHost['log']): () => void
  provision(site: SiteSpec, signal: AbortSignal): Promise<void>
  /** Applies a changed domain or disk quota. */
  update(site: SiteSpec, signal: AbortSignal): Promise<void>
  /** Serves a 503 page for the site and stops its PHP pool. */
  suspend(site: SiteSpec, signal: AbortSignal): Promise<void>
  unsuspend(site: SiteSpec, signal: AbortSignal): Promise<void>
  /** Removes pool, server block, Unix user, certificate, files and logs. */
  delete(site: SiteSpec, signal: AbortSignal): Promise<void>
  /** Its state, the bytes its home takes and the fingerprint of the certificate it serves (null: none). */
  report(site: SiteSpec): Promise<SiteReport>
  /**
   * Serves the site, as its `state.json` last recorded it, over HTTPS with `certificate` (files in
   * `<dataDir>/tls/<site id>/`), replacing the one it had without a moment of neither; later operations keep it.
   * Throws a plain Error (to be tried again) while the site is not on the node; a `NodeFailure` `unsafe_certificate`
   * for a bad id, fingerprint or PEM, and `nginx_config_refused` when nginx refuses it (a key not the certificate's).
   */
  installCertificate(siteId: string, certificate: SiteCertificate, signal: AbortSignal): Promise<void>
  /** Serves the site over plain HTTP only and removes its certificate's files; done when it has none. */
  removeCertificate(siteId: string, signal: AbortSignal): Promise<void>
  /**
   * Answers `challenge` at `/.well-known/acme-challenge/<token>` over plain HTTP on every site's domain, suspended
   * ones included (a file; no reload). A `NodeFailure` `unsafe_challenge` for a bad token or key authorization.
   */
  putChallenge(challenge: AcmeChallenge, signal: AbortSignal): Promise<void>
  /** Stops answering the challenge of `token`; done when there is none. */
  removeChallenge(token: string, signal: AbortSignal): Promise<void>
  /**
   * Asks one of its services about a site it has (`site_not_on_node` otherwise, a `NodeRefusal` like every
   * refusal of a service): the service runs as the site's Unix user.
   */
  call(call: SiteCall, signal: AbortSignal): Promise<unknown>
  /** Asks one of its services about the node itself (`unknown_node_service` for one that answers no such call). */
  nodeCall(call: NodeServiceCall, signal: AbortSignal): Promise<unknown>
  /**
   * Starts what `services` (default: every service of its parts) keep running while the node runs
   * (`NodeService.start`: the SFTP server), in the order listed; resolves with how to stop them all. A service that
   * fails to start is logged and left out.
   */
  startServices(log: NodeServiceHost['log'], services?: readonly NodeService[]): Promise<() => Promise<void>>
  /**
   * Everything the node holds (its sites as their `state.json` record them, what belongs to no site, what its
   * services keep per site), for the panel to compare with its records. Changes nothing.
   */
  inventory(): Promise<NodeInventory>
  /** What every site on the node takes on disk now (homes walked without following links out of them). */
  disk(): Promise<readonly SiteDisk[]>
  /** What each site served since the last call, read from the access logs (offsets kept under `dataDir`). */
  traffic(): Promise<readonly TrafficReading[]>
  /**
   * What the sites named (default: every site it keeps) use of CPU, memory, processes and disk against their limits,
   * as the kernel counts it in each site's group, and how often each limit was hit in the last 24 hours. CPU is the
   * percent of one core since the previous reading of the site (a quarter second for its first). A site the node
   * does not keep is left out. Changes nothing but the hourly counts it keeps.
   */
  resources(siteIds?: readonly string[]): Promise<readonly SiteResources[]>
}
