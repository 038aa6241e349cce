// Reads and writes of the nodes table; the only file that knows its columns.

import { type Db, sql } from '../../core/index.ts'
import type { Node, NodeCapabilities, NodeInventoryState } from './contract.ts'
import type { NodesTable, NodesTables } from './migrations.ts'
import { agentSilenceMs } from './node/agent/protocol.ts'
import { notReadyReasons } from './readiness.ts'

/**
 * The API form of a row (never its token hash). `localServes`: whether the panel's own `local` node serves its sites
 * (see readiness.ts); default false, a local node that lays out files only.
 */
export function toNode(row: NodesTable, localServes = false): Node {
  const connected =
    row.driver === 'local' ||
    (row.agent_seen_at !== null && Date.now() - Date.parse(row.agent_seen_at) <= agentSilenceMs)
  const capabilities =
    row.agent_capabilities === null ? null : (JSON.parse(row.agent_capabilities) as NodeCapabilities)
  const notReady = notReadyReasons({
    driver: row.driver,
    connected,
    seenAt: row.agent_seen_at,
    capabilities,
    localServes,
  })
  return {
    id: row.id,
    name: row.name,
    driver: row.driver,
    hostname: row.hostname,
    status: row.status as Node['status'],
    ready: notReady.length === 0,
    notReady,
    agent: {
      connected,
      lastSeenAt: row.agent_seen_at,
      version: row.agent_version,
      capabilities,
    },
    siteDefaults: {
      cpuPercent: row.site_cpu_percent,
      memoryMB: row.site_memory_mb,
      processes: row.site_processes,
    },
    // `held` came after the first inventories were recorded.
    inventory:
      row.inventory === null
        ? null
        : { held: 0, ...(JSON.parse(row.inventory) as Omit<NodeInventoryState, 'held'>) },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/** All nodes as a query, for reads and lists: keyed by `id`. */
export function nodesQuery(db: Db) {
  return db.withTables<NodesTables>().selectFrom('nodes').selectAll()
}

/** The node row with this id, or undefined. */
export function findNodeRow(db: Db, id: string): Promise<NodesTable | undefined> {
  return nodesQuery(db).where('id', '=', id).executeTakeFirst()
}

/** The nodes of the `local` driver (the one the panel runs itself, unless staff added more). */
export function localNodeRows(db: Db): Promise<NodesTable[]> {
  return nodesQuery(db).where('driver', '=', 'local').orderBy('id').execute()
}

/** Active nodes, oldest first (ids are time-ordered). */
export function activeNodeRows(db: Db): Promise<NodesTable[]> {
  return nodesQuery(db).where('status', '=', 'active').orderBy('id').execute()
}

/** Whether another node has this name, whatever its case. */
export async function nameTaken(db: Db, name: string, exceptId: string | null = null): Promise<boolean> {
  let query = nodesQuery(db).where(sql<string>`lower(name)`, '=', name.toLowerCase())
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

/** Inserts a node row. */
export async function insertNode(db: Db, row: NodesTable): Promise<void> {
  await db.withTables<NodesTables>().insertInto('nodes').values(row).execute()
}

/** Changes columns of a node. */
export async function updateNode(
  db: Db,
  id: string,
  changes: Partial<Omit<NodesTable, 'id' | 'driver' | 'created_at'>>,
): Promise<void> {
  await db.withTables<NodesTables>().updateTable('nodes').set(changes).where('id', '=', id).execute()
}

/** Deletes the node `id` with what the plugin keeps of it: commands still queued for it and its sites' disk use. */
export async function deleteNode(db: Db, id: string): Promise<void> {
  const tables = db.withTables<NodesTables>()
  await tables.deleteFrom('node_commands').where('node_id', '=', id).execute()
  await tables.deleteFrom('node_site_disk').where('node_id', '=', id).execute()
  await tables.deleteFrom('nodes').where('id', '=', id).execute()
}
