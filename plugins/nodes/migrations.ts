// The nodes plugin's tables, the `local` node of a fresh install, and the traffic the kernel used to keep.

import { type Migration, newId, nowIso, sql } from '../../core/index.ts'

/** Row of `nodes`. */
/** The limits new nodes give their sites (and existing ones were given when the limits came): `siteDefaults`. */
export const nodeSiteDefaults = { site_cpu_percent: 100, site_memory_mb: 1024, site_processes: 128 } as const

export interface NodesTable {
  id: string
  name: string
  driver: string
  hostname: string
  status: string
  /** SHA-256 (hex) of the node's agent token; null until one is issued (the seeded local node). */
  agent_token_hash: string | null
  /** When the node's agent last asked for work; null when none ever did. */
  agent_seen_at: string | null
  /** The agent process that asked last (each run of the agent picks a new one), its version and what it can run. */
  agent_session: string | null
  agent_version: string | null
  /** JSON of what the node last reported it can run (`NodeCapabilities`), or null before it did. */
  agent_capabilities: string | null
  /** JSON of what the node's last reconciliation found (`NodeInventoryState`), or null before the first. */
  inventory: string | null
  /** The node's latest `node.reconcile` job: a reconciliation is not started while one is live. */
  reconcile_job_id: string | null
  /**
   * The latest one platform staff asked for (it puts back what the node lost altogether): started beside a live
   * automatic one, not beside a live one of its own.
   */
  reconcile_staff_job_id: string | null
  /**
   * What a site on the node may take where neither the site nor its customer's plan sets a limit: CPU in percent of
   * one core, memory in MB, processes; null: unlimited.
   */
  site_cpu_percent: number | null
  site_memory_mb: number | null
  site_processes: number | null
  created_at: string
  updated_at: string
}

/** Row of `node_commands`: a driver operation for a node's agent, waiting, sent, or answered. */
export interface NodeCommandsTable {
  id: string
  node_id: string
  /** The job and attempt the command belongs to: a newer attempt's command supersedes an older one. */
  job_id: string
  attempt: number
  /** `provision`, `update`, `suspend`, `unsuspend`, `delete`, `report`. */
  operation: string
  site_id: string
  /** The site spec, sealed (it may carry a database password); cleared once answered. */
  payload_sealed: string | null
  /** `queued`, `sent`, `succeeded`, `failed`, `abandoned`. */
  status: string
  /** The agent session it was sent to. */
  session: string | null
  /** JSON of the answer (a report), or of the failure `{ message, code }`. */
  result: string | null
  created_at: string
  sent_at: string | null
  finished_at: string | null
}

/** Row of `node_traffic`: what nodes reported in one usage scope (`all`, `brand:<id>`, `customer:<id>`) and hour. */
export interface NodeTrafficTable {
  scope_key: string
  /** `2026-11-22T05`, UTC. */
  hour: string
  requests: number
  bytes: number
}

/** The plugin's tables, for `db.withTables<NodesTables>()`. */
/** Row of `node_site_disk`: what a site takes on its node's disk, once per usage scope it counts under. */
export interface NodeSiteDiskTable {
  node_id: string
  site_id: string
  scope_key: string
  bytes: number
  measured_at: string
}

export type NodesTables = {
  nodes: NodesTable
  node_traffic: NodeTrafficTable
  node_commands: NodeCommandsTable
  node_site_disk: NodeSiteDiskTable
}

/** The kernel's traffic table of installations made before 0.2, which `0002_node_traffic` takes over. */
type KernelTrafficTables = { traffic_buckets: NodeTrafficTable }

/** Options of {@link nodesMigrations}. */
export interface NodesMigrationOptions {
  /** Seed the `local` node on a fresh install (off when the local driver is not installed). */
  readonly seedLocal: boolean
}

/** The migrations, seeding the `local` node when the built-in driver is installed. */
export function nodesMigrations(options: NodesMigrationOptions): readonly Migration[] {
  return [
    {
      id: '0001_create_nodes',
      async up(db) {
        await db.schema
          .createTable('nodes')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('driver', 'text', (c) => c.notNull())
          .addColumn('hostname', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('agent_token_hash', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute()
        // The index, not only the handler's check, keeps `Web-1` and `web-1` from both existing.
        await db.schema
          .createIndex('nodes_name_lower_idx')
          .on('nodes')
          .unique()
          .expression(sql`lower(name)`)
          .execute()
        await db.schema.createIndex('nodes_status_idx').on('nodes').columns(['status', 'id']).execute()
        if (!options.seedLocal) return
        // So `npm start` can place sites out of the box; it gets an agent token when staff rotate one.
        const now = nowIso()
        await db
          .withTables<NodesTables>()
          .insertInto('nodes')
          .values({
            id: newId('nod'),
            name: 'local',
            driver: 'local',
            hostname: 'localhost',
            status: 'active',
            agent_token_hash: null,
            created_at: now,
            updated_at: now,
          })
          .execute()
      },
    },
    {
      id: '0002_node_traffic',
      async up(db, { hasTable }) {
        // Wide columns: a busy installation sends more than 2^31 bytes in an hour (Postgres' `integer`).
        await db.schema
          .createTable('node_traffic')
          .addColumn('scope_key', 'text', (c) => c.notNull())
          .addColumn('hour', 'text', (c) => c.notNull())
          .addColumn('requests', 'bigint', (c) => c.notNull())
          .addColumn('bytes', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('node_traffic_pk', ['scope_key', 'hour'])
          .execute()
        // Traffic was the kernel's before 0.2: its rows move here. Fresh installs never had the table.
        if (!(await hasTable('traffic_buckets'))) return
        const old = db.withTables<NodesTables & KernelTrafficTables>()
        await old
          .insertInto('node_traffic')
          .columns(['scope_key', 'hour', 'requests', 'bytes'])
          .expression(old.selectFrom('traffic_buckets').select(['scope_key', 'hour', 'requests', 'bytes']))
          .execute()
        await db.schema.dropTable('traffic_buckets').execute()
      },
    },
    {
      id: '0003_node_agents',
      async up(db) {
        for (const column of ['agent_seen_at', 'agent_session', 'agent_version', 'agent_capabilities'])
          await db.schema.alterTable('nodes').addColumn(column, 'text').execute()
        // The agent is known by its token alone: it finds its node by the token's hash.
        await sql`create index nodes_agent_token_idx on nodes (agent_token_hash)`.execute(db)
        await db.schema
          .createTable('node_commands')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('node_id', 'text', (c) => c.notNull())
          .addColumn('job_id', 'text', (c) => c.notNull())
          .addColumn('attempt', 'integer', (c) => c.notNull())
          .addColumn('operation', 'text', (c) => c.notNull())
          .addColumn('site_id', 'text', (c) => c.notNull())
          .addColumn('payload_sealed', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('session', 'text')
          .addColumn('result', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('sent_at', 'text')
          .addColumn('finished_at', 'text')
          .execute()
        await sql`create index node_commands_node_idx on node_commands (node_id, status, id)`.execute(db)
      },
    },
    {
      id: '0004_node_site_disk',
      async up(db) {
        await db.schema
          .createTable('node_site_disk')
          .addColumn('node_id', 'text', (c) => c.notNull())
          .addColumn('site_id', 'text', (c) => c.notNull())
          .addColumn('scope_key', 'text', (c) => c.notNull())
          .addColumn('bytes', 'bigint', (c) => c.notNull())
          .addColumn('measured_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('node_site_disk_pk', ['site_id', 'scope_key'])
          .execute()
        await sql`create index node_site_disk_scope_idx on node_site_disk (scope_key)`.execute(db)
        await sql`create index node_site_disk_node_idx on node_site_disk (node_id)`.execute(db)
      },
    },
    {
      // What nodes reported before node modules (a `wordpress` version, no services, no `missing`) says nothing
      // true now: forgotten, each node says it again at its next report (the local node at the panel's start).
      id: '0005_node_modules_capabilities',
      async up(db) {
        await sql`update nodes set agent_capabilities = null where agent_capabilities not like '%"applications"%'`.execute(
          db,
        )
      },
    },
    {
      // What reconciliation found on the node, and its latest reconciliation job (one at a time per node).
      id: '0006_node_inventory',
      async up(db) {
        for (const column of ['inventory', 'reconcile_job_id'])
          await db.schema.alterTable('nodes').addColumn(column, 'text').execute()
      },
    },
    {
      // The latest reconciliation staff asked for: one that found a live automatic one still starts.
      id: '0007_node_staff_reconcile',
      async up(db) {
        await db.schema.alterTable('nodes').addColumn('reconcile_staff_job_id', 'text').execute()
      },
    },
    {
      // The limits a node gives its sites where neither the site nor its plan sets one. Existing nodes take the same
      // defaults as new ones (one core, 1 GiB, 128 processes): until now their sites had no limit at all.
      id: '0008_node_site_defaults',
      async up(db) {
        for (const [column, value] of Object.entries(nodeSiteDefaults))
          await db.schema
            .alterTable('nodes')
            .addColumn(column, 'integer', (c) => c.defaultTo(value))
            .execute()
      },
    },
  ]
}
