// Whether a site's node reaches a database server, and from which address: both as the panel knows them (the node's
// `hostname`, the server's `host`), each the address the other side sees. A server registered at a loopback address
// is on the panel's own machine, reached only by sites on that machine; a site's login is granted to the address its
// node connects from (docs/databases.md, "Sites on other machines").

import { isIP } from 'node:net'
import type { Node } from '../nodes/contract.ts'
import type { DatabaseServersTable } from './migrations.ts'
import { allowedHostOf, loopbackHosts } from './naming.ts'

/** Whether `host` names the machine it is used on: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const value = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
  if (value === 'localhost' || value.endsWith('.localhost')) return true
  if (isIP(value) === 4) return value.startsWith('127.')
  return value === '::1' || value === '0:0:0:0:0:0:0:1'
}

/** Where a site's node is, as a database server's placement needs it. */
export interface SiteNode {
  readonly id: string
  /** The node runs on the panel's own machine: the `local` node, or one registered at a loopback address. */
  readonly onPanelMachine: boolean
  /** The address its connections come from, as its record names it (`hostname`). */
  readonly address: string
}

/** The node as placement sees it. */
export function siteNodeOf(node: Pick<Node, 'id' | 'driver' | 'hostname'>): SiteNode {
  return {
    id: node.id,
    onPanelMachine: node.driver === 'local' || isLoopbackHost(node.hostname),
    address: node.hostname,
  }
}

/**
 * Whether a site on `node` can reach `server`: its node's own server (on the node's loopback), or one staff added
 * that is not on the panel's loopback, or is and the node is on the panel's machine too.
 */
export function reaches(server: Pick<DatabaseServersTable, 'host' | 'node_id'>, node: SiteNode): boolean {
  if (server.node_id !== null) return server.node_id === node.id
  return node.onPanelMachine || !isLoopbackHost(server.host)
}

/**
 * The hosts a site's login on `server` is granted to: the loopback ones on its node's own server or a server on the
 * same machine as the node (both on the panel's machine); else the node's address, as its record names it.
 */
export function siteLoginHosts(
  server: Pick<DatabaseServersTable, 'host' | 'node_id'>,
  node: SiteNode | null,
): string[] {
  if (node === null || server.node_id !== null) return [...loopbackHosts]
  if (isLoopbackHost(server.host) || isLoopbackHost(node.address)) return [...loopbackHosts]
  const address = allowedHostOf(node.address)
  return address ? [address] : [...loopbackHosts]
}
