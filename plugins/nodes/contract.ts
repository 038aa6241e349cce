// The nodes plugin's public contract: the node schema, the node driver interface and its registry, the node modules
// plugins declare (their work on nodes), and the directory other plugins (sites) use to place resources on nodes
// and send them commands. What runs on a node is the node wing's (node/contract.ts), re-exported here for the
// panel's side.

import {
  type Db,
  defineDependents,
  defineExtensionPoint,
  defineService,
  enumOf,
  type JobRun,
  Problem,
  type Static,
  type Trx,
  t,
} from '../../core/index.ts'
import type { NodeInventory, ResourceKind, SiteCall } from './node/contract.ts'
import type { NodeModuleEntry } from './node/node.ts'
import type { NodeCommand, NodeOperationName, NodeResult } from './node/operations.ts'
import { nodesProblems } from './problems.ts'

export {
  type AcmeChallenge,
  type ApplicationSite,
  defineNodeModule,
  type InventorySite,
  type InventoryStray,
  type LimitEnforcement as NodeLimitEnforcement,
  type NodeCommandOptions,
  type NodeCommandResult,
  NodeFailure,
  type NodeInventory,
  type NodeModule,
  NodeRefusal,
  type NodeService,
  type NodeServiceHost,
  type NodeSite,
  type ResourceKind,
  type ResourceUse,
  type ServiceInventory,
  type SiteApplication,
  type SiteAppSpec,
  type SiteCacheSpec,
  type SiteCall,
  type SiteCertificate,
  type SiteHeaderSpec,
  type SiteRedirectSpec,
  type SiteReport,
  type SiteResources,
  type SiteServing,
  type SiteSpec,
} from './node/contract.ts'
export type { NodeModuleEntry } from './node/node.ts'
export {
  type NodeCommand,
  type NodeOperationName,
  type NodePayload,
  type NodeResult,
  nodeCommand,
} from './node/operations.ts'

/** States of a node: only `active` nodes receive new sites. */
export const nodeStatuses = ['active', 'draining', 'disabled'] as const
export type NodeStatus = (typeof nodeStatuses)[number]

/** Why a node cannot serve its sites now. */
export const NodeUnreadiness = t.Object(
  {
    code: t.String({
      maxLength: 64,
      description:
        'A stable code. Said by the node: `binary_missing` (nginx or PHP-FPM not installed), `port_taken` (another program listens on the sites’ port: Debian’s own nginx, say), `stack_failed` (nginx or PHP-FPM would not start for another reason), `not_running` (they are not running: not started yet, or stopped). Known to the panel: `agent_never_connected` (the node’s agent never called), `agent_disconnected` (it has not called for a minute), `not_reported` (the node has not said what it runs yet).',
      examples: ['port_taken'],
    }),
    message: t.String({
      maxLength: 2000,
      description: 'What is wrong, in words an operator acts on (the port, the program, what it said).',
    }),
  },
  { $id: 'NodeUnreadiness' },
)
export type NodeUnreadiness = Static<typeof NodeUnreadiness>

/** The kinds of a site's limits a node may enforce (node/contract.ts's `ResourceKind`). */
export const resourceKinds = ['cpu', 'memory', 'processes', 'disk'] as const satisfies readonly ResourceKind[]

/** Whether a node enforces one kind of limit (node/contract.ts's `LimitEnforcement`). */
export const LimitEnforcement = t.Object({
  enforced: t.Boolean({ description: 'Whether the node enforces it.' }),
  how: t.String({
    maxLength: 300,
    description: 'How (`cgroup v2 cpu.max`), or why not (`no writable cpu controller`).',
  }),
})

/** What a node can run, as its agent reports it (node/contract.ts's `NodeCapabilities`). */
export const NodeCapabilities = t.Object(
  {
    nginx: t.Union([t.String({ maxLength: 64 }), t.Null()], { description: 'nginx’s version, or null.' }),
    php: t.Union([t.String({ maxLength: 64 }), t.Null()], { description: 'PHP-FPM’s version, or null.' }),
    phpVersions: t.Optional(
      t.Array(t.String({ pattern: '^[0-9]{1,2}\\.[0-9]{1,2}$' }), {
        maxItems: 20,
        description:
          'The PHP versions its sites may choose (`["8.2"]`, `PATCH /sites/{id}/php` `version`), each a `php-fpm<version>` binary on the node, lowest first; the highest is the default. Absent from older agents.',
      }),
    ),
    unixUsers: t.Boolean({ description: 'Whether each site runs as a Unix user of its own.' }),
    mode: t.Union([t.Literal('serving'), t.Literal('files-only')], {
      description:
        '`serving`: nginx and PHP-FPM serve the sites; `files-only`: they are missing, and only the sites’ files are laid out.',
    }),
    applications: t.Record(t.String(), t.String({ maxLength: 64 }), {
      maxProperties: 100,
      description:
        'The applications it installs into sites, by kind (`[a-z][a-z0-9-]*`), with their versions (`{ "wordpress": "6.1.1" }`).',
    }),
    services: t.Record(t.String(), t.Record(t.String(), t.Unknown()), {
      maxProperties: 100,
      description:
        'The services it offers, by name, with what each says of itself (`{ "files": {}, "database": { "engine": "mariadb", "version": "10.11.6", "host": "127.0.0.1", "port": 3307 } }`).',
    }),
    missing: t.Array(
      t.Object({
        what: t.String({
          maxLength: 300,
          description: 'What is missing (`nginx`, `php-fpm`, a Debian package).',
        }),
        for: t.String({
          maxLength: 100,
          description: 'What it is needed for (`serving sites`, `wordpress sites`).',
        }),
        fix: t.Optional(
          t.String({
            maxLength: 300,
            description:
              'What to do about it, when it is not what `setup` installs (a node module its install lacks: update the node’s install to the panel’s version).',
          }),
        ),
      }),
      {
        maxItems: 100,
        description:
          'What the node lacks to serve sites and to install each application; `npm run panel -- node setup` (or `npm run agent -- setup` on a remote node) installs it.',
      },
    ),
    setup: t.String({
      maxLength: 200,
      description:
        'The command that installs on the node what it lacks: `npm run panel -- node setup` for the local node, `npm run agent -- setup` on a remote one.',
    }),
    limits: t.Optional(
      t.Object(
        {
          cpu: LimitEnforcement,
          memory: LimitEnforcement,
          processes: LimitEnforcement,
          disk: LimitEnforcement,
        },
        {
          description:
            'Which kinds of a site’s limits the node enforces, and how or why not. A limit of a kind it does not enforce is recorded and shown, not applied (absent from older agents: none enforced).',
        },
      ),
    ),
    network: t.Optional(
      t.Object(LimitEnforcement.properties, {
        description:
          'Whether its sites’ processes are kept off the node’s and the panel’s private addresses, and how or why not (absent from older agents).',
      }),
    ),
    readiness: t.Optional(
      t.Object(
        {
          ready: t.Boolean({
            description:
              'Whether the node serves its sites now: its nginx and PHP-FPM run (or it lays out files only, by its operator’s choice).',
          }),
          reasons: t.Array(NodeUnreadiness, { maxItems: 20, description: 'Why not; empty when ready.' }),
        },
        {
          description:
            'Whether the node serves its sites now, as it says itself (absent from older agents). The node’s `ready` adds what the panel knows (its agent connected).',
        },
      ),
    ),
  },
  { $id: 'NodeCapabilities' },
)
export type NodeCapabilities = Static<typeof NodeCapabilities>

/** Something on a node the panel does not know: reported by reconciliation, never removed. */
export const UnknownOnNode = t.Object(
  {
    kind: t.Union([t.Literal('site'), t.Literal('home'), t.Literal('server-block'), t.Literal('pool')], {
      description:
        '`site`: a site the node serves that the panel does not place there (`name` is its id, `domain` its domain); `home`: a folder under the node’s `sites/` with no site record of the node’s own; `server-block`, `pool`: an nginx server block or PHP-FPM pool that belongs to no site of the node.',
    }),
    name: t.String({ maxLength: 300, description: 'The site id, or the file’s name without `.conf`.' }),
    domain: t.Optional(
      t.String({ maxLength: 253, description: 'The domain the node serves it at (`site`).' }),
    ),
  },
  { $id: 'UnknownOnNode' },
)
export type UnknownOnNode = Static<typeof UnknownOnNode>

/** What the last reconciliation of a node found (see docs/nodes.md, "Reconciliation"). */
export const NodeInventoryState = t.Object(
  {
    checkedAt: t.String({ format: 'date-time', description: 'When the node last reported what it holds.' }),
    sites: t.Integer({ minimum: 0, description: 'How many sites the node said it keeps.' }),
    reapplied: t.Integer({
      minimum: 0,
      description:
        'What that reconciliation started jobs to put back (a site missing on the node, a certificate not served, a site in the wrong state).',
    }),
    held: t.Integer({
      minimum: 0,
      description:
        'What that reconciliation did not put back because the node held none of it (every site placed there missing, or every database of its own server): what a rebuilt node and one whose disk is not mounted yet both look like. Held until platform staff, having looked at the node, ask for a reconciliation (`POST /nodes/{id}/reconcile`), which puts it back.',
    }),
    unknown: t.Array(UnknownOnNode, {
      maxItems: 1000,
      description:
        'What the node holds that the panel does not know: reported (`node.drifted`) and left alone, never removed. The first 1000, each as the node named it up to the lengths above (what a node says is not trusted to be small).',
    }),
  },
  { $id: 'NodeInventoryState' },
)
export type NodeInventoryState = Static<typeof NodeInventoryState>

/**
 * What a node can apply of each of a site's limits, wherever it is set (a site's own, a plan's, a node's default):
 * `pids.max` takes at most the kernel's 4194304, and a site with less than 16 MB has nothing to run with.
 */
export const siteLimitRanges = {
  cpuPercent: { minimum: 1, maximum: 100_000 },
  memoryMB: { minimum: 16, maximum: 100_000_000 },
  processes: { minimum: 1, maximum: 4_194_304 },
} as const

const siteDefault = (name: keyof typeof siteLimitRanges, what: string) =>
  t.Union([t.Integer(siteLimitRanges[name]), t.Null()], {
    description: `${what}, ${siteLimitRanges[name].minimum} to ${siteLimitRanges[name].maximum}; null: unlimited.`,
  })

/**
 * What a site on a node may take where neither the site (staff's `limits`) nor its customer's plan sets a limit.
 * New nodes start at one core, 1024 MB and 128 processes.
 */
export const NodeSiteDefaults = t.Object(
  {
    cpuPercent: siteDefault('cpuPercent', 'CPU a site may take, in percent of one core (100 = one core)'),
    memoryMB: siteDefault('memoryMB', 'Memory a site’s processes may take together, in MB'),
    processes: siteDefault('processes', 'Processes (and threads) a site may run at once'),
  },
  {
    $id: 'NodeSiteDefaults',
    description:
      'The limits the node gives a site where neither the site nor its customer’s plan sets one (docs/limits.md). A change is applied to the node’s sites by `site.update` jobs.',
  },
)
export type NodeSiteDefaults = Static<typeof NodeSiteDefaults>

/** A node (server) as the API returns it. */
export const Node = t.Object(
  {
    id: t.String({ description: 'Identifier, `nod_…`.' }),
    name: t.String({ description: 'Name of the node, unique.' }),
    driver: t.String({ description: 'The node driver that runs it (`local`).' }),
    hostname: t.String({ description: 'Host name or address of the server.' }),
    status: enumOf(nodeStatuses, {
      description: '`active` nodes receive new sites; `draining` keeps its sites; `disabled` is out of use.',
    }),
    ready: t.Boolean({
      description:
        'Whether the node can serve sites now: its agent is connected (the `local` node runs in the panel) and the node says it serves (its nginx and PHP-FPM run). A node that is not ready receives no new site; `notReady` says why.',
    }),
    notReady: t.Array(NodeUnreadiness, {
      description: 'Why the node is not ready, with a stable code each; empty when it is.',
    }),
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
        capabilities: t.Union([NodeCapabilities, t.Null()], {
          description: 'What the node can run, as its agent last said; null before it said.',
        }),
      },
      { description: 'The node’s agent: connected or not, its version, what it can run.' },
    ),
    siteDefaults: NodeSiteDefaults,
    inventory: t.Union([NodeInventoryState, t.Null()], {
      description:
        'What the node’s last reconciliation found: at every connection of its agent (the local node: at the panel’s start) and periodically, the node reports what it holds and the panel puts back what is missing. Null before the first.',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Node' },
)
export type Node = Static<typeof Node>

/** The job attempt a driver operation runs in: remote drivers send it with the operation. */
export interface DriverRun {
  readonly jobId: string
  readonly attempt: number
}

/**
 * Runs sites on a kind of node: carries a command (node/operations.ts) to the node and resolves with what its
 * operation resolved with. Every operation is idempotent (provisioning an existing site, deleting a missing one
 * succeed), because jobs may repeat a step after a crash; each honours `signal`. Throws a `NodeFailure` or a
 * `NodeRefusal` when the node said repeating cannot help, anything else when it could not be reached or failed.
 */
export interface NodeDriver {
  /** `local`, `agent`, ... */
  readonly name: string
  readonly description: string
  send<O extends NodeOperationName>(
    node: Node,
    command: NodeCommand<O>,
    signal: AbortSignal,
    run?: DriverRun,
  ): Promise<NodeResult<O>>
}

/**
 * A plugin that keeps something of its own per node (the databases plugin: the node's own database server) and
 * follows what the node reports it runs.
 */
export interface NodeWatcher {
  readonly name: string
  /**
   * In the transaction that records what `node` now reports it can run (`node.agent.capabilities`), when that
   * changed: at the local node's start, at an agent's poll. Throwing rolls the record back (the next report tries
   * again), so keep it to the store.
   */
  reported(trx: Trx, node: Node): Promise<void>
  /**
   * In the transaction that changes the node's `siteDefaults` (staff's `PATCH /nodes/{id}`): the sites plugin starts
   * the jobs that apply them to the node's sites. Optional.
   */
  siteDefaultsChanged?(trx: Trx, node: Node): Promise<void>
}

/** Plugins that follow what nodes report. */
export const nodeWatchers = defineExtensionPoint<NodeWatcher>({
  id: 'nodes.watchers',
  owner: 'nodes',
  description: 'Plugins that keep something per node and follow what each node reports it can run.',
  keyOf: (watcher) => watcher.name,
})

/** What one reconciler made of a node's inventory. */
export interface ReconcileOutcome {
  /** How many jobs it started to put back what the node lacks (a site, a certificate, a state). */
  readonly reapplied: number
  /** What the node holds that this plugin would own but does not know (a site of no record): reported only. */
  readonly unknown?: readonly UnknownOnNode[]
  /**
   * What it did not put back because the node lost all of it at once (see {@link NodeReport.staffAsked}): held
   * until platform staff ask for the reconciliation.
   */
  readonly held?: number
}

/** What a node reported it holds, as reconcilers are given it. */
export interface NodeReport {
  readonly node: Node
  readonly inventory: NodeInventory
  /**
   * When the node was asked (ISO 8601): a record changed since (a site provisioned meanwhile) may not be in the
   * inventory yet, and is left for the next reconciliation.
   */
  readonly askedAt: string
  /**
   * Whether platform staff asked for this reconciliation (`POST /nodes/{id}/reconcile`). A node that holds none of
   * what a plugin placed on it looks the same whether it was rebuilt or its disk is not mounted yet; putting all of
   * it back over an unmounted data directory would write fresh copies beside the real ones and give sites' logins
   * new passwords their real files do not know. So a reconciler holds back what the node lost altogether (reporting
   * it as `held`) unless staff asked, having looked at the node; what a node lost in part is put back at any round.
   */
  readonly staffAsked: boolean
}

/**
 * A plugin whose records live on nodes (sites, their certificates, SFTP accounts) and puts back what a node lacks.
 * Called in the node's `node.reconcile` job with what the node reports it holds: it compares that with its records
 * and starts its own jobs (idempotent node operations, in the usual job lanes) for what is missing, leaving alone
 * what a job of its own is working on already, and never removing what it does not know.
 */
export interface NodeReconciler {
  readonly name: string
  reconcile(job: JobRun, report: NodeReport): Promise<ReconcileOutcome>
}

/** Plugins that put back what a node lacks (their reconcilers run in the order plugins were set up). */
export const nodeReconcilers = defineExtensionPoint<NodeReconciler>({
  id: 'nodes.reconcilers',
  owner: 'nodes',
  description: 'Plugins that compare what a node holds with their records and put back what it lacks.',
  keyOf: (reconciler) => reconciler.name,
})

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

/**
 * The node modules of the installation: a plugin with work on nodes (services for its sites, site applications)
 * adds its module, declared once in its `node/index.ts`; the local node runs it in the panel's process (with the
 * plugin's `options`), every agent loads the same file of its own install.
 * @example context.extensionPoint(nodeModules).add({ module: filesNodeModule })
 */
export const nodeModules = defineExtensionPoint<NodeModuleEntry>({
  id: 'nodes.modules',
  owner: 'nodes',
  description: 'What plugins run on nodes: services for sites, site applications (node/contract.ts).',
  keyOf: (entry) => entry.module.name,
})

/**
 * The node's agent has not been connected for a while (`agentSilenceMs`) as a command waited for it: worth another
 * attempt once it is back. Its `code`, `node_unreachable`, becomes the job's error code.
 */
export class NodeUnreachable extends Error {
  readonly code = 'node_unreachable'
  constructor(message: string) {
    super(message)
    this.name = 'NodeUnreachable'
  }
}

/** What other plugins may ask of nodes. */
export interface NodeDirectory {
  /** The node with this id, or null, read through `db` (a transaction's `trx` inside one; default the store). */
  find(id: string, db?: Db): Promise<Node | null>
  /** Nodes that accept new sites (`active`), oldest first, read through `db` (a transaction's `trx` inside one). */
  activeNodes(db?: Db): Promise<readonly Node[]>
  /**
   * Resolves once the node this panel runs itself (`local`) said what it runs after the panel's start, so its
   * readiness is known: at once when it is not starting (reported already, or not started by this process), after
   * 15 s at most. Placement waits for it outside the creating transaction, so a site created in the second after
   * `npm start` is placed rather than refused (an agent's node is never waited for: its agent may never come).
   */
  localReported(): Promise<void>
  /**
   * Carries `command` out on `node` through its driver and resolves with what the operation resolved with: the one
   * path every node operation takes. A failure the node calls final is a `JobFailure` with its code (the job fails at
   * once); a service's refusal a `NodeRefusal`; a node whose agent is away a {@link NodeUnreachable}; anything else
   * is worth another attempt. `run` is the job attempt it
   * belongs to (remote drivers send it along).
   * @example await nodes.send(node, nodeCommand('provision', spec), job.signal, { jobId: job.id, attempt: job.attempt })
   */
  send<O extends NodeOperationName>(
    node: Node,
    command: NodeCommand<O>,
    signal: AbortSignal,
    run?: DriverRun,
  ): Promise<NodeResult<O>>
  /**
   * Asks a service of the node about one of its sites (`send` of the `call` operation) and resolves with its answer.
   * Throws a {@link NodeRefusal} when the service refused (also `site_not_on_node` and `unknown_node_service`),
   * anything else when the node could not be reached or failed.
   */
  call(node: Node, call: SiteCall, signal: AbortSignal): Promise<unknown>
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

/** A node as its dependents see it when it is to be deleted. */
export interface NodeRef {
  readonly id: string
  readonly name: string
}

/**
 * What keeps a node: plugins whose records live on a node (sites, databases) count them in `blocking`; while any
 * counts more than 0, `DELETE /nodes/{id}` is refused with 409 `node_in_use` naming them. What is the node's own and
 * blocks nothing (its own database server, empty) goes with it through `detach`, in the deleting transaction.
 * @example context.extensionPoint(nodeDependents).add({ name: 'sites', blocking: (db, node) => sitesOn(db, node.id) })
 */
export const nodeDependents = defineDependents<NodeRef>({
  id: 'nodes.dependents',
  owner: 'nodes',
  description: 'What keeps a node from being deleted (its sites, its databases, …), and what goes with it.',
})
