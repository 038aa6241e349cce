// The node contract: the one door of the node wing. What runs on a node (the site runtime, the agent, and every
// plugin's node module: its services and site applications) is written against these types and nothing of the
// panel's kernel, so a node runs none of the panel. The panel's side re-exports what it needs of them.

/**
 * Long-running programs a node keeps (its nginx and PHP-FPM, a module's database server): found again through their
 * pid files by any later run, started in a session of their own, stopped with their signal.
 */
export { type MasterSpec, runningMaster, startMaster, stopMaster } from './runtime/masters.ts'

/**
 * What a site's sandbox sees of the node's system (/usr, /proc, /dev and a minimal /etc), the same for its PHP-FPM
 * master and for the commands and shells a module runs in it.
 */
export { type SandboxEtc, sandboxSystem } from './runtime/sandbox-system.ts'

/**
 * The runtime's own files at the top of every site's home (its state; the room it holds back to write it on a full
 * disk): never the site's, so services that show a site its files (the files API) list and touch none of them.
 */
export const runtimeHomeFiles: ReadonlySet<string> = new Set(['state.json', '.plinth-room'])

/**
 * The start of the names the runtime and its services give what they keep at the top of a site's home for a while
 * (a restore's working folder, `.plinth-restore-<run>`): never the site's either.
 */
export const runtimeHomePrefix = '.plinth-'

/** Whether `name`, at the top of a site's home, is the runtime's (its files, or a service's passing folder). */
export function isRuntimeHomeName(name: string): boolean {
  return runtimeHomeFiles.has(name) || name.startsWith(runtimeHomePrefix)
}

/** What a node is told of a site to serve it. */
export interface SiteSpec {
  readonly id: string
  readonly handle: string
  readonly domain: string
  readonly type: string
  readonly customerId: string
  /** Disk quota in MB; null means unlimited. */
  readonly diskMB: number | null
  /**
   * CPU the site's processes may take together, in percent of one core (100 = one core, 250 = two and a half);
   * null or absent (an older panel): unlimited.
   */
  readonly cpuPercent?: number | null
  /** Memory (RAM, its temporary space in memory included) the site's processes may take together, in MB. */
  readonly memoryMB?: number | null
  /** Processes (and threads) the site may run at once. */
  readonly processes?: number | null
  /**
   * PHP functions the site may call that the node disables by default (`disable_functions`: `exec`, `proc_open`, …),
   * as its plan relaxes them. Absent: none.
   */
  readonly allowFunctions?: readonly string[]
  /**
   * What runs in the site, when its type installs an application: given on provision (and repeated on later
   * operations, where the application ignores what it already did). Absent: a static placeholder site.
   */
  readonly app?: SiteAppSpec
  /**
   * How the site is served beyond what every site gets: its document root, whether PHP runs, its PHP's version and
   * settings, its page cache, redirects and headers. Each part is given by the panel plugin that keeps it, on every
   * operation (the node renders the whole site from the spec each time). Absent (an older panel), and each absent
   * member: the defaults, as sites were served before.
   */
  readonly serving?: SiteServing
}

/**
 * How a site is served (`SiteSpec.serving`). The node checks every value again before it writes one into nginx's or
 * PHP-FPM's files (a `NodeFailure` `unsafe_site_spec` otherwise): the panel's validation is not trusted.
 */
export interface SiteServing {
  /**
   * The document root, a relative folder under `htdocs/` (`public`, `web/public`): no `..`, no leading `/`. Absent
   * or empty: `htdocs/` itself.
   */
  readonly root?: string
  /** Whether `.php` files run through the site's PHP-FPM master. False: nginx alone serves files (a `static` site). Default true. */
  readonly php?: boolean
  /** The PHP version the site's master runs (`8.2`), one of the node's (its capabilities' `phpVersions`). Absent: the node's default. */
  readonly phpVersion?: string
  /** `php.ini` values by name, from the node's allowlist (`memory_limit: "256M"`), as strings. Absent: the node's defaults. */
  readonly phpSettings?: Readonly<Record<string, string>>
  /** The site's page cache (nginx's FastCGI cache of its PHP answers). Absent: off. */
  readonly cache?: SiteCacheSpec
  /** Redirects, tried in order before the site's files. Absent: none. */
  readonly redirects?: readonly SiteRedirectSpec[]
  /** Response headers added to every answer of the site. Absent: none. */
  readonly headers?: readonly SiteHeaderSpec[]
}

/** A site's page cache as its node is told of it. */
export interface SiteCacheSpec {
  readonly enabled: boolean
  /** How long an answer is served from the cache, in seconds. */
  readonly ttlSeconds: number
  /** Cookie names (or prefixes ending in `*`) whose presence on a request bypasses the cache (logged-in users, carts). */
  readonly bypassCookies?: readonly string[]
  /**
   * Path prefixes never cached (`/cart/`), besides the node's own (`/wp-admin/`, `/wp-login.php`, `/wp-json/`): each
   * starts with `/`, letters, digits and `/ . _ ~ % -` only. Absent: none.
   */
  readonly excludedPaths?: readonly string[]
}

/** A redirect rule of a site. */
export interface SiteRedirectSpec {
  /** The path it matches, starting with `/`. */
  readonly from: string
  /** `exact`: the path alone; `prefix`: the path and everything below it (the rest appended to `to`). */
  readonly match: 'exact' | 'prefix'
  /** Where to: a path on the site (`/new`) or an absolute `https://` or `http://` URL. */
  readonly to: string
  readonly code: 301 | 302 | 307 | 308
}

/** A response header a site adds to its answers. */
export interface SiteHeaderSpec {
  /** An HTTP field name (`X-Frame-Options`). */
  readonly name: string
  /** Printable ASCII, no quotes or backslashes the node would have to escape. */
  readonly value: string
}

/**
 * An application installed into a site: the `kind` of a {@link SiteApplication} a node module offers, and what
 * that application reads (its own shape: WordPress's title, database and administrator). Sealed at rest in the
 * panel's command queue and never logged: it may carry a database password.
 */
export interface SiteAppSpec {
  readonly kind: string
  readonly settings: Readonly<Record<string, unknown>>
}

/** What a node reports of a site. */
export interface SiteReport {
  /** `absent` when the node has nothing for the site. */
  readonly state: 'active' | 'suspended' | 'absent'
  /** Bytes the site's files take on the node. */
  readonly diskBytes: number
  /** The fingerprint of the certificate the site serves over HTTPS, or null (absent from older agents). */
  readonly certificate?: string | null
}

/** The kinds of limit a node enforces on a site's processes. */
export type ResourceKind = 'cpu' | 'memory' | 'processes' | 'disk'

/** One kind of a site's resources, as the node's kernel counts it. */
export interface ResourceUse {
  /**
   * Use now: `cpu` in percent of one core over the last reading's interval, `memory` and `disk` in bytes,
   * `processes` in tasks (processes and threads).
   */
  readonly used: number
  /** The limit in the same unit, or null when there is none. */
  readonly limit: number | null
  /** How often the limit was hit in the last 24 hours (throttled periods, failed allocations, refused forks, refused writes). */
  readonly hits24h: number
  /** Whether the node enforces this kind at all (false: `limit` is recorded, not enforced, and the node says why). */
  readonly enforced: boolean
}

/** What a site uses of each kind of resource, read from the node's kernel. */
export interface SiteResources {
  readonly siteId: string
  /** ISO time of the reading. */
  readonly at: string
  readonly cpu: ResourceUse
  readonly memory: ResourceUse
  readonly processes: ResourceUse
  readonly disk: ResourceUse
}

/** What a node holds, as it reports it for reconciliation (the `inventory` operation). */
export interface NodeInventory {
  /** The sites it keeps: a home whose `state.json` names it. */
  readonly sites: readonly InventorySite[]
  /**
   * What it has under its data directory that belongs to no site it keeps: a home without a readable `state.json`,
   * a server block or PHP pool with no such site. Reported, never removed.
   */
  readonly strays: readonly InventoryStray[]
  /** What each service that keeps something per site holds (`sftp`: its accounts' ids), by service name. */
  readonly services: Readonly<Record<string, ServiceInventory>>
}

/** One site a node keeps, as its `state.json` records it. */
export interface InventorySite {
  readonly id: string
  readonly domain: string
  readonly state: 'active' | 'suspended'
  /** The fingerprint of the certificate it serves over HTTPS (lower-case hex, no colons), or null. */
  readonly certificate: string | null
  /** The application installed into it (`wordpress`), or null. */
  readonly app: string | null
}

/** Something on a node that belongs to no site it keeps. */
export interface InventoryStray {
  /** `home` (`sites/<name>/`), `server-block` (`nginx/sites/<name>.conf`) or `pool` (a site's PHP-FPM folder, `php/sites/<name>/`, or a pool of the shared master of earlier runtimes, `php/pools/<name>.conf`). */
  readonly kind: 'home' | 'server-block' | 'pool'
  readonly name: string
}

/** What a service keeps for sites, as it reports it: the ids of its records (an SFTP account's `sftp_…`). */
export interface ServiceInventory {
  readonly ids: readonly string[]
}

/** A certificate a node serves a site with over HTTPS (`SITES_HTTPS_PORT`). */
export interface SiteCertificate {
  /** SHA-256 of the certificate's DER in lower-case hex, no colons: what the node names its files after. */
  readonly fingerprint: string
  /** The certificate followed by its intermediates, PEM blocks, as nginx's `ssl_certificate` serves them. */
  readonly chainPem: string
  /** The key, unencrypted PKCS#8 PEM: readable by root only on the node, never logged. */
  readonly privateKeyPem: string
}

/**
 * An ACME HTTP-01 challenge's answer: the node serves `keyAuthorization` as text at
 * `/.well-known/acme-challenge/<token>` on every site's domain over plain HTTP, suspended sites included.
 */
export interface AcmeChallenge {
  /** The challenge's token: base64url, at most 128 characters. */
  readonly token: string
  readonly keyAuthorization: string
}

/**
 * A request for one of the services a node offers its sites (`files`: the site's files; others that plugins add):
 * JSON both ways, so the same request reaches the local node in process and a remote node through its agent.
 */
export interface SiteCall {
  readonly siteId: string
  /** The node service's name (`files`). */
  readonly service: string
  /** What the service is asked, as that service defines it. */
  readonly request: unknown
}

/** A request for a service of a node about the node itself (its database server), not one of its sites. */
export interface NodeServiceCall {
  /** The node service's name (`database`). */
  readonly service: string
  readonly request: unknown
}

/**
 * A refusal by a node service that repeating cannot help (a path out of the site, a file that changed meanwhile):
 * a stable code the panel plugin maps to its problem, a message for people (naming site paths, never the node's
 * own), and optional details.
 */
export class NodeRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message)
    this.name = 'NodeRefusal'
  }
}

/**
 * A failure of a node operation that repeating cannot fix (an unsafe site spec, a configuration nginx refuses): the
 * panel fails the job at once with its code. Anything else thrown is a failure worth another attempt.
 */
export class NodeFailure extends Error {
  constructor(
    message: string,
    /** A stable code, snake_case: `unsafe_site_spec`, `nginx_config_refused`. */
    readonly code: string,
  ) {
    super(message)
    this.name = 'NodeFailure'
  }
}

/** What a node command prints and how it ended. */
export interface NodeCommandResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A command's output for an error message: stderr, else stdout, trimmed to its last 2,000 characters. */
export function outputOf(result: NodeCommandResult): string {
  const text = (result.stderr.trim() || result.stdout.trim()).replace(/<[^>]+>/g, ' ').replace(/\s+\n/g, '\n')
  return text.length > 2000 ? `…${text.slice(-2000)}` : text || '(no output)'
}

/** Options of {@link NodeSite.run}. */
export interface NodeCommandOptions {
  /** Written to the command's stdin, then closed. */
  readonly stdin?: string | Uint8Array
  /** The working directory, a path on the node inside the site's home. Default the home. */
  readonly cwd?: string
  /** Killed after this many ms. Default 120 000. */
  readonly timeoutMs?: number
}

/**
 * A site as a node service or application sees it: its home, its state and its Unix user, and a way to run
 * programs as that user (so the kernel, not the service's checks alone, keeps the site's code and files from other
 * sites and the node).
 */
export interface NodeSite {
  readonly id: string
  /** The site's home on the node, a real path: what the API shows as `/` (`htdocs/`, `logs/`, `tmp/`). */
  readonly home: string
  readonly state: 'active' | 'suspended'
  /**
   * The site's Unix user; null where the node makes none (it lays out files only, or does not run as root): then
   * programs run as the runtime's own user.
   */
  readonly user: { readonly name: string; readonly uid: number; readonly gid: number } | null
  /** Its disk quota in bytes (the spec's `diskMB`), or null when unlimited. */
  readonly quotaBytes: number | null
  /** The bytes its home takes now (links not followed). */
  usedBytes(signal: AbortSignal): Promise<number>
  /** Runs `argv` as the site's user, in a session of its own, with a clean environment; never throws for its exit. */
  run(argv: readonly string[], options: NodeCommandOptions, signal: AbortSignal): Promise<NodeCommandResult>
  /**
   * The command line that runs `argv` as the site's user (for services that stream a program's input or output),
   * placed first in the site's resource group (its cgroup: its limits hold, and it ends with the site).
   */
  asUser(argv: readonly string[]): string[]
  /**
   * The command line that, run as root, places itself in the site's resource group (no core dumps either) and then
   * runs `argv` as it is: for a program that drops to the site's user itself (the shell's sandbox). Where the node
   * makes no Unix user per site, `argv` as it is.
   */
  enter(argv: readonly string[]): string[]
  /** The clean environment programs run with as the site's user. */
  readonly environment: Readonly<Record<string, string>>
}

/**
 * A service a node offers its sites, reached with a {@link SiteCall}: a node module declares it once, and the
 * local node and every agent offer it. Throw a {@link NodeRefusal} for a refusal with a code; anything else is a
 * failure of the node.
 */
export interface NodeService {
  /** Unique: `files`. */
  readonly name: string
  handle(site: NodeSite, request: unknown, signal: AbortSignal): Promise<unknown>
  /**
   * For a service asked about the node itself rather than one of its sites (the node's own database server): answers
   * a {@link NodeServiceCall}. Optional: a node refuses such a call to a service without it (`unknown_node_service`).
   */
  handleNode?(request: unknown, signal: AbortSignal): Promise<unknown>
  /**
   * For a service that keeps records of its own per site on the node (the SFTP accounts): their ids, reported with
   * the node's inventory so the panel can put back what a rebuilt node lost; null while it keeps none (its server does
   * not run). Optional.
   */
  inventory?(): Promise<ServiceInventory | null>
  /**
   * What the node tells the panel of this service with its capabilities (`capabilities.services[name]`): JSON, no
   * secret, read when the capabilities are (once a minute at most). Default `{}`.
   */
  describe?(): Promise<Readonly<Record<string, unknown>>>
  /**
   * The TCP ports on the node's own addresses this service serves the node's sites on (the node's database server's,
   * which their grants name): the only ones besides the sites' HTTP and HTTPS that the node's closure of its own
   * addresses lets the sites' processes reach. Read whenever the closure is loaded again. Default none.
   */
  sitePorts?(): readonly number[]
  /**
   * The ports it will serve the sites on as its files under `dataDir` (its own folder, as `start` gets it) say,
   * before it started: kept open to the sites while the node starts again (a restart, an upgrade, a reboot), so
   * its sites' code is not refused its database server for as long as the node's start takes. Default none.
   */
  sitePortsAtRest?(dataDir: string): readonly number[]
  /**
   * What the node lacks now for this service to do its work (a server of its own that could not start, and why):
   * told with the node's `missing`, read with its capabilities. Default none.
   */
  lacks?(): readonly NodeLack[]
  /**
   * For a service that keeps something running while the node runs (the SFTP server's listener): called once when
   * the node starts (the panel's local node at start-up, the agent once the panel took its token); resolves with
   * how to stop it. Optional: most services only answer calls.
   */
  start?(host: NodeServiceHost): Promise<() => Promise<void>>
}

/** What a node lends a service's {@link NodeService.start}. */
export interface NodeServiceHost {
  /**
   * The service's own directory, `<node data dir>/services/<service name>/` (root's; others may pass through
   * `services/`): made by the node before `start`, for the service's files.
   */
  readonly dataDir: string
  /** The site as a call sees it (home, state, Unix user); a NodeRefusal `site_not_on_node` when the node lacks it. */
  site(siteId: string): Promise<NodeSite>
  /** A line in the node's log (the panel's logger, or the agent's stdout); fields first, never a secret. */
  log(level: 'info' | 'warn' | 'error', fields: Readonly<Record<string, unknown>>, message: string): void
}

/** The programs a node found to serve with; null where one is missing. */
export interface NodePrograms {
  readonly nginx: string | null
  readonly phpFpm: string | null
  /** The PHP CLI of PHP-FPM's version (`php8.2`) when there is one, else `php`. */
  readonly php: string | null
}

/**
 * A site as an application installing into it sees it: a {@link NodeSite} (its programs run as its user) with its
 * document root, the spec being applied, and file writes made as the site's user.
 */
export interface ApplicationSite extends NodeSite {
  readonly spec: SiteSpec
  /** The document root (`<home>/htdocs`), the site's user's. */
  readonly htdocs: string
  /** The domain the application was last applied with, when that was another (the site moved). */
  readonly previousDomain: string | null
  /** The node's programs (the PHP CLI the site's PHP runs with). */
  readonly programs: NodePrograms
  /** Writes a file of the site whole (a temporary file renamed into place), owned by its user. */
  writeFile(path: string, content: string, mode: number, signal: AbortSignal): Promise<void>
  /** A small regular file of the site (never through a link), or null when missing or bigger than `maxBytes`. */
  readFile(path: string, maxBytes?: number): Promise<string | null>
}

/**
 * An application a node installs into sites whose spec names its `kind` (WordPress; a site type's application on
 * the panel's side asks for it): declared by a node module, so the site runtime names none.
 */
export interface SiteApplication {
  /** The `kind` specs name: `wordpress`. */
  readonly kind: string
  /** What the node lacks to run it (Debian's packages, in words), or its version when nothing is missing. */
  probe(
    programs: NodePrograms,
  ): Promise<{ readonly version: string } | { readonly missing: readonly string[] }>
  /** Where nginx sends a request for a path it has no file for (`/index.php?$args`). Default: 404. */
  readonly fallback?: string
  /**
   * The servers the site's code connects to as `settings` name them (WordPress's database server). Where one is on
   * the node's own addresses (a database server on the panel's machine, at 127.0.0.1), the node's closure of its
   * addresses lets this site's processes, and only this site's, through to it. Throws for settings it would refuse.
   * Default none.
   */
  reaches?(settings: Readonly<Record<string, unknown>>): readonly SiteEndpoint[]
  /**
   * Installs the application into the site, or carries a changed spec (a new domain, new settings) to the one it
   * installed: idempotent and resumable. `stage` is what it recorded last (null on a site it never touched);
   * `record(stage)` keeps how far it got, so a run stopped anywhere goes on from there. `settings` is the spec's
   * (absent on operations that do not carry them, such as a suspension). Resolves with the stage it ends in. Throws a
   * {@link NodeFailure} for what repeating cannot fix.
   */
  apply(
    site: ApplicationSite,
    settings: Readonly<Record<string, unknown>> | undefined,
    stage: string | null,
    record: (stage: string) => Promise<void>,
    signal: AbortSignal,
  ): Promise<string>
}

/** A server a site's code connects to: a host name or address, and a TCP port. */
export interface SiteEndpoint {
  readonly host: string
  readonly port: number
}

/** Something a node lacks, and what for: shown to operators with the command that installs it. */
export interface NodeLack {
  /** What is missing, as Debian names it where it can: `nginx`, `php-fpm`, `Debian’s wordpress package`. */
  readonly what: string
  /** What it is needed for: `serving sites`, `wordpress sites`. */
  readonly for: string
  /** What to do about it, when it is not what the node's `setup` command installs (update the node's install). */
  readonly fix?: string
}

/** Why a node cannot serve its sites now. */
export interface NodeUnreadiness {
  /**
   * A stable code: `binary_missing` (nginx or PHP-FPM is not installed), `port_taken` (another program listens on
   * the sites' port), `stack_failed` (nginx or PHP-FPM would not start for another reason), `not_running` (its
   * masters are not running, and no start failed: not started yet, or stopped since).
   */
  readonly code: string
  /** What is wrong, in words an operator acts on (the port, the program, what the master said). */
  readonly message: string
}

/**
 * Whether the node serves its sites now: its nginx and PHP-FPM run (or it lays out files only, by its operator's
 * choice, and needs nothing running). A node that is not ready says why, and receives no new site.
 */
export interface NodeReadiness {
  readonly ready: boolean
  /** Why it is not ready; empty when it is. */
  readonly reasons: readonly NodeUnreadiness[]
}

/** What a node can run, as it reports it to the panel. */
export interface NodeCapabilities {
  /** nginx's version, or null when it is not installed. */
  readonly nginx: string | null
  /** PHP-FPM's version, or null. */
  readonly php: string | null
  /**
   * The PHP versions its sites may choose (`["8.2"]`; `SiteServing.phpVersion`), each a `php-fpm<version>` binary,
   * lowest first; the highest is the default. Absent from older agents.
   */
  readonly phpVersions?: readonly string[]
  /** Whether it makes a Unix user per site (it serves and runs as root); false: pools run as its own user. */
  readonly unixUsers: boolean
  /**
   * `serving` when nginx and PHP-FPM run the sites; `files-only` when they are missing and only the sites' files
   * are laid out (said so, never a silent half).
   */
  readonly mode: 'serving' | 'files-only'
  /** The applications it installs into sites, by kind, with their versions (`{ wordpress: "6.1.1" }`). */
  readonly applications: Readonly<Record<string, string>>
  /** The services it offers, by name, with what each says of itself (`{ files: {}, database: { engine, port } }`). */
  readonly services: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  /** What it lacks to serve sites and to install each application its modules offer. */
  readonly missing: readonly NodeLack[]
  /** The command that installs on the node what it lacks (`npm run panel -- node setup`, `npm run agent -- setup`). */
  readonly setup: string
  /** Whether it serves its sites now, and why not (absent from older agents: judged by `mode` alone). */
  readonly readiness?: NodeReadiness
  /**
   * Which kinds of limit it enforces on its sites' processes, and how (`cgroup v1`, `cgroup v2`, `ext4 image`), or
   * why not (absent from older agents: none enforced). Never a silent no-op: a kind it cannot enforce says so here
   * and in each site's resources.
   */
  readonly limits?: Readonly<Record<ResourceKind, LimitEnforcement>>
  /** Whether its sites' processes are kept off the node's and the panel's private addresses, and how, or why not. */
  readonly network?: LimitEnforcement
}

/** Whether a node enforces one kind of limit, and how or why not. */
export interface LimitEnforcement {
  readonly enforced: boolean
  /** How (`cgroup v1 cpu`), or why not (`no writable cpu controller`). */
  readonly how: string
}

/** What a node lends a module while it makes its parts. */
export interface NodeModuleHost {
  /** The node's environment (`SFTP_PORT`, ...): a module's settings on an agent, where no panel option reaches. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** What a node module adds to a node. */
export interface NodeModuleParts {
  readonly services?: readonly NodeService[]
  readonly applications?: readonly SiteApplication[]
  /** What the node lacks for the module to offer what it would (`mariadb-server`): told with the node's `missing`. */
  readonly lacks?: readonly NodeLack[]
}

/**
 * A plugin's part that runs on nodes, declared once in the plugin's `node/index.ts` and run by the panel's local
 * node (in process) and by every agent (which loads the same file: the panel names it by `source`).
 * @example export default defineNodeModule({ name: 'files', source: import.meta.url, create: () => ({ services: [filesService()] }) })
 */
export interface NodeModule<Options = undefined> {
  /** Unique: the plugin's name. */
  readonly name: string
  /** `import.meta.url` of the file that default-exports the module: agents import the same file of their install. */
  readonly source: string
  /**
   * The Debian packages its services and applications need (`['zip', 'unzip']`): what `node setup` installs for it.
   * Default none.
   */
  readonly packages?: readonly string[]
  /**
   * Makes the module's parts for one node (the local node, one run of an agent): `options` are what the panel's
   * plugin gave for its local node; an agent gives none, and the module reads its settings from `host.env`.
   */
  create(host: NodeModuleHost, options: Options | undefined): NodeModuleParts | Promise<NodeModuleParts>
}

/** Declares a node module (see {@link NodeModule}); default-export it from the plugin's `node/index.ts`. */
export function defineNodeModule<Options = undefined>(module: NodeModule<Options>): NodeModule<Options> {
  return module
}
