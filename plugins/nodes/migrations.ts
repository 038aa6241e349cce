// The nodes plugin's table, and the `local` node of a fresh install.

import { type Migration, newId, nowIso, sql } from '../../core/index.ts'

/** Row of `nodes`. */
export interface NodesTable {
  id: string
  name: string
  driver: string
  hostname: string
  status: string
  /** SHA-256 (hex) of the node's agent token; null until one is issued (the seeded local node). */
  agent_token_hash: string | null
  created_at: string
  updated_at: string
}

/** The plugin's tables, for `db.withTables<NodesTables>()`. */
export type NodesTables = { nodes: NodesTable }

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
  ]
}
