// The nodes plugin's public contract: the node schema, the node driver interface and its registry, and the
// directory other plugins (sites) use to place resources on nodes and run drivers.

import { type Db, defineExtensionPoint, defineService, type Static, t } from '../../core/index.ts'

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
}

/** What a driver reports of a site on its node. */
export interface SiteReport {
  /** `absent` when the node has nothing for the site. */
  readonly state: 'active' | 'suspended' | 'absent'
  /** Bytes the site's files take on the node. */
  readonly diskBytes: number
}

/**
 * Runs sites on a kind of node. Every operation is idempotent (provisioning an existing site, deleting a missing
 * one succeed), because jobs may repeat a step after a crash; each honours `signal`.
 */
export interface NodeDriver {
  /** `local`, `agent`, ... */
  readonly name: string
  readonly description: string
  provision(node: Node, site: SiteSpec, signal: AbortSignal): Promise<void>
  /** Applies a changed domain or limits. */
  update(node: Node, site: SiteSpec, signal: AbortSignal): Promise<void>
  suspend(node: Node, site: SiteSpec, signal: AbortSignal): Promise<void>
  unsuspend(node: Node, site: SiteSpec, signal: AbortSignal): Promise<void>
  delete(node: Node, site: SiteSpec, signal: AbortSignal): Promise<void>
  report(node: Node, site: SiteSpec): Promise<SiteReport>
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
