// The nodes plugin's public contract: the node schema, the node driver interface and its registry, and the
// directory other plugins (sites) use to place resources on nodes and run drivers.

import { type Db, defineExtensionPoint, defineService, Problem, type Static, t } from '../../core/index.ts'
import { nodesProblems } from './problems.ts'

/** States of a node: only `active` nodes receive new sites. */
export const nodeStatuses = ['active', 'draining', 'disabled'] as const
export type NodeStatus = (typeof nodeStatuses)[number]

/** A node (server) as the API returns it. */
export const Node = t.Object(
  {
    id: t.String({ description: 'Identifier, `nod_…`.' }),
    name: t.String({ description: 'Name of the node, unique.' }),
    driver: t.String({ description: 'The node driver that runs it (`local`).' }),
    hostname: t.String({ description: 'Host name or address of the server.' }),
    status: t.Union(
      nodeStatuses.map((status) => t.Literal(status)),
      {
        description:
          '`active` nodes receive new sites; `draining` keeps its sites; `disabled` is out of use.',
      },
    ),
    agent: t.Object(
      {
        connected: t.Boolean({
          description:
            'Whether its agent asked for work within the last minute (always true for the `local` node, run in the panel’s process).',
        }),
        lastSeenAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
          description: 'When its agent last asked for work; null when none ever did.',
        }),
        version: t.Union([t.String(), t.Null()], { description: 'The agent’s version.' }),
        capabilities: t.Union(
          [
            t.Object({
              nginx: t.Union([t.String(), t.Null()]),
              php: t.Union([t.String(), t.Null()]),
              wordpress: t.Union([t.String(), t.Null()]),
              unixUsers: t.Boolean(),
              mode: t.Union([t.Literal('serving'), t.Literal('files-only')], {
                description:
                  '`serving`: nginx and PHP-FPM serve the sites; `files-only`: they are missing, and only the sites’ files are laid out.',
              }),
            }),
            t.Null(),
          ],
          { description: 'What the node can run, as its agent last said; null before it said.' },
        ),
      },
      { description: 'The node’s agent: connected or not, its version, what it can run.' },
    ),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Node' },
)
export type Node = Static<typeof Node>

/** What a driver needs to know of a site to serve it. */
export interface SiteSpec {
  readonly id: string
  readonly handle: string
  readonly domain: string
  readonly type: string
  readonly customerId: string
  /** Disk quota in MB; null means unlimited. */
  readonly diskMB: number | null
  /**
   * What runs in the site, when its type installs an application (WordPress): given on provision (and repeated on
   * later operations, where drivers ignore what they already did). Absent: a static placeholder site.
   */
  readonly app?: SiteApp
}

/** An application a site type has the node install into a site. */
export type SiteApp = WordPressApp

/**
 * WordPress from the node's Debian `wordpress` package, installed into the site's document root, with its own
 * `wp-config.php` (fresh salts), on the database given, and installed with `title` and the admin given.
 */
export interface WordPressApp {
  readonly kind: 'wordpress'
  /** The blog's title: the site's name. */
  readonly title: string
  /** The site's MariaDB database and login (the databases plugin made them); the password goes in wp-config.php. */
  readonly database: {
    readonly host: string
    readonly port: number
    readonly name: string
    readonly user: string
    readonly password: string
  }
  /**
   * The administrator the installer creates. `passwordHash` is a bcrypt hash (`$2y$…`) of the password the panel
   * showed once, which WordPress checks with PHP's `crypt()`: the panel never keeps the password, nor does the node.
   */
  readonly admin: { readonly user: string; readonly email: string; readonly passwordHash: string }
}

/** What a driver reports of a site on its node. */
export interface SiteReport {
  /** `absent` when the node has nothing for the site. */
  readonly state: 'active' | 'suspended' | 'absent'
  /** Bytes the site's files take on the node. */
  readonly diskBytes: number
  /** The fingerprint of the certificate the site serves over HTTPS, or null (absent from older agents). */
  readonly certificate?: string | null
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
 * JSON both ways, so the same request reaches the local runtime in process and a remote node through its agent.
 */
export interface SiteCall {
  readonly siteId: string
  /** The node service's name (`files`). */
  readonly service: string
  /** What the service is asked, as that service defines it. */
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

/** What a node command prints and how it ended. */
export interface NodeCommandResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
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
 * A site as a node service sees it: its home, its state and its Unix user, and a way to run programs as that user
 * (so the kernel, not the service's checks alone, keeps the site's code and files from other sites and the node).
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
  /** The command line that runs `argv` as the site's user (for services that stream a program's input or output). */
  asUser(argv: readonly string[]): string[]
  /** The clean environment programs run with as the site's user. */
  readonly environment: Readonly<Record<string, string>>
}

/**
 * A service a node offers its sites, reached with a {@link SiteCall}: the plugin that owns the area adds it to
 * `nodes.services` (the local node) and to the agent's list (`hosts/agent/node-services.ts`). Throw a
 * {@link NodeRefusal} for a refusal with a code; anything else is a failure of the node.
 */
export interface NodeService {
  /** Unique: `files`. */
  readonly name: string
  handle(site: NodeSite, request: unknown, signal: AbortSignal): Promise<unknown>
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
   * The service's own directory, `<runtime data dir>/services/<service name>/` (root's; others may pass through
   * `services/`): made by the runtime before `start`, for the service's files.
   */
  readonly dataDir: string
  /** The site as a call sees it (home, state, Unix user); a NodeRefusal `site_not_on_node` when the node lacks it. */
  site(siteId: string): Promise<NodeSite>
  /** A line in the node's log (the panel's logger, or the agent's stdout); fields first, never a secret. */
  log(level: 'info' | 'warn' | 'error', fields: Readonly<Record<string, unknown>>, message: string): void
}

/** The services nodes offer their sites: plugins that require `nodes` add theirs. */
export const nodeServices = defineExtensionPoint<NodeService>({
  id: 'nodes.services',
  owner: 'nodes',
  description: 'Services nodes offer their sites (files, ...), reached through the node driver.',
  keyOf: (service) => service.name,
})

/** The job attempt a driver operation runs in: remote drivers send it with the operation. */
export interface DriverRun {
  readonly jobId: string
  readonly attempt: number
}

/**
 * Runs sites on a kind of node. Every operation is idempotent (provisioning an existing site, deleting a missing
 * one succeed), because jobs may repeat a step after a crash; each honours `signal`.
 */
export interface NodeDriver {
  /** `local`, `agent`, ... */
  readonly name: string
  readonly description: string
  provision(node: Node, site: SiteSpec, signal: AbortSignal, run?: DriverRun): Promise<void>
  /** Applies a changed domain or limits. */
  update(node: Node, site: SiteSpec, signal: AbortSignal, run?: DriverRun): Promise<void>
  suspend(node: Node, site: SiteSpec, signal: AbortSignal, run?: DriverRun): Promise<void>
  unsuspend(node: Node, site: SiteSpec, signal: AbortSignal, run?: DriverRun): Promise<void>
  delete(node: Node, site: SiteSpec, signal: AbortSignal, run?: DriverRun): Promise<void>
  report(node: Node, site: SiteSpec): Promise<SiteReport>
  /**
   * Serves the site over HTTPS with `certificate`, replacing the one it had (the new files in place before the
   * server block names them, checked before the reload). Fails, to be tried again, while the site is not on the
   * node yet; kept when the site is later updated, suspended or unsuspended; removed with the site.
   */
  installCertificate(
    node: Node,
    siteId: string,
    certificate: SiteCertificate,
    signal: AbortSignal,
    run?: DriverRun,
  ): Promise<void>
  /** Stops serving the site over HTTPS and removes its certificate and key; done when it had none. */
  removeCertificate(node: Node, siteId: string, signal: AbortSignal, run?: DriverRun): Promise<void>
  /** Serves an ACME HTTP-01 challenge's answer on every site's domain until it is removed. */
  putChallenge(node: Node, challenge: AcmeChallenge, signal: AbortSignal, run?: DriverRun): Promise<void>
  removeChallenge(node: Node, token: string, signal: AbortSignal, run?: DriverRun): Promise<void>
  /**
   * Asks a service of the node about one of its sites and resolves with its answer. Throws a {@link NodeRefusal}
   * when the service refused (also `site_not_on_node` and `unknown_node_service`), anything else when the node
   * could not be reached or failed.
   */
  call(node: Node, call: SiteCall, signal: AbortSignal): Promise<unknown>
}

/** The registry of node drivers: `local` is built in; plugins that require `nodes` add others. */
export const nodeDrivers = defineExtensionPoint<NodeDriver>({
  id: 'nodes.drivers',
  owner: 'nodes',
  description: 'Kinds of node sites can run on.',
  keyOf: (driver) => driver.name,
})

/** Where a site lives, as the plugin that owns sites knows it. */
export interface LocatedSite {
  readonly customerId: string
  readonly nodeId: string
}

/**
 * Tells the nodes plugin which customer and node a site id belongs to, so traffic a node reports is counted for
 * the right customer and only for sites on that node. The sites plugin fills it.
 */
export interface SiteLocator {
  readonly name: string
  locate(siteIds: readonly string[]): Promise<ReadonlyMap<string, LocatedSite>>
}

export const siteLocators = defineExtensionPoint<SiteLocator>({
  id: 'nodes.siteLocators',
  owner: 'nodes',
  description: 'Resolve site ids reported by nodes to their customer and node.',
  keyOf: (locator) => locator.name,
})

/** What other plugins may ask of nodes. */
export interface NodeDirectory {
  /** The node with this id, or null. */
  find(id: string): Promise<Node | null>
  /** Nodes that accept new sites (`active`), oldest first, read through `db` (a transaction's `trx` inside one). */
  activeNodes(db?: Db): Promise<readonly Node[]>
  /** The driver of a node; throws if the node's driver is not installed. */
  driverOf(node: Node): NodeDriver
}

export const nodeDirectory = defineService<NodeDirectory>({
  id: 'nodes.directory',
  owner: 'nodes',
  description: 'Finds nodes and their drivers for plugins that place resources on nodes.',
})

/** Scope names the plugin declares. */
export const nodeScopes = {
  read: 'node:read',
  manage: 'node:manage',
} as const

/** The refusal of work inside a site whose node cannot be reached now: list it in the route's `problems`. */
export const nodeUnavailable = nodesProblems.node_unavailable

/**
 * Refuses at once (503 `node_unavailable`) work for a node run by an agent that is not connected, rather than waiting
 * a minute for it (other drivers say themselves whether they reach their node, when called).
 */
export function requireReachableNode(node: Node | null): asserts node is Node {
  if (!node) throw new Problem(nodesProblems.node_unavailable, { detail: 'The site has no node.' })
  if (node.driver === 'agent' && !node.agent.connected) throw new Problem(nodesProblems.node_unavailable)
}
