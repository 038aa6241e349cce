// The databases plugin's tables. Customers and sites are referenced by id only: their plugins may be swapped.

import { type Migration, sql } from '../../core/index.ts'

/** Row of `database_servers`. */
export interface DatabaseServersTable {
  id: string
  name: string
  engine: string
  host: string
  port: number
  username: string
  /** The administrator's password, sealed with the plugin's secret box; never returned. */
  password_sealed: string
  status: string
  version: string
  /** How many databases it may hold; null for no limit. */
  capacity: number | null
  /** The node whose own server it is (the node runs it; the panel reaches it through the node), or null. */
  node_id: string | null
  created_at: string
  updated_at: string
}

/** Row of `databases`. */
export interface DatabasesTable {
  id: string
  customer_id: string
  site_id: string | null
  server_id: string
  engine: string
  /** The real name on the server. */
  name: string
  status: string
  size_bytes: number | null
  size_measured_at: string | null
  job_id: string | null
  /** The sync job working on the database now, and until when its claim holds (see `database_users`). */
  sync_job: string | null
  sync_until: string | null
  created_at: string
  updated_at: string
}

/** Row of `database_users`. */
export interface DatabaseUsersTable {
  id: string
  customer_id: string
  /** The site whose application made it (WordPress's login): deleting the site deletes it. Null for the API's. */
  site_id: string | null
  server_id: string
  engine: string
  /** The real login name on the server. */
  username: string
  /** JSON array of host names and addresses. */
  allowed_hosts: string
  /** JSON of its grants as the API shows them, kept with `database_grants` (which is what lookups by database read). */
  grants: string
  status: string
  /** 1 while its customer is suspended. */
  locked: number
  /**
   * The password verifier the server stores (MariaDB's hash, PostgreSQL's SCRAM secret), sealed, kept only until
   * the user's job has given it to the server; null otherwise. The password itself is never stored.
   */
  pending_verifier: string | null
  /** Goes up with every change the server must follow: a job that applied an older one applies again. */
  revision: number
  /** The revision the server last followed (`revision` while nothing is pending; -1 before the first). */
  applied_revision: number
  /** JSON of the drift the last check found, or null. */
  drift: string | null
  job_id: string | null
  /**
   * The sync job applying the user on the server now, and until when its claim holds (a crashed job's claim runs
   * out): one job at a time, so an older job never puts back what a newer one applied (a lock undone).
   */
  sync_job: string | null
  sync_until: string | null
  created_at: string
  updated_at: string
}

/** Row of `database_grants`: one user's access to one database. */
export interface DatabaseGrantsTable {
  user_id: string
  database_id: string
  access: string
}

/** Row of `database_checks`: when the periodic check of sizes and grants is next due (one row, `id` = 'check'). */
export interface DatabaseChecksTable {
  id: string
  next_at: string
}

/** The plugin's tables, for `db.withTables<DatabasesTables>()`. */
export type DatabasesTables = {
  database_servers: DatabaseServersTable
  databases: DatabasesTable
  database_users: DatabaseUsersTable
  database_grants: DatabaseGrantsTable
  database_checks: DatabaseChecksTable
}

export const databasesMigrations: readonly Migration[] = [
  {
    id: '0001_create_databases',
    async up(db) {
      await db.schema
        .createTable('database_servers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('host', 'text', (c) => c.notNull())
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('password_sealed', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('capacity', 'integer')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('databases')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('site_id', 'text')
        .addColumn('server_id', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('size_bytes', 'bigint')
        .addColumn('size_measured_at', 'text')
        .addColumn('job_id', 'text')
        .addColumn('sync_job', 'text')
        .addColumn('sync_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      // One real name per server: the name the tenant's clients connect to cannot mean two databases.
      await sql`create unique index databases_server_name_idx on databases (server_id, name)`.execute(db)
      await sql`create index databases_customer_idx on databases (customer_id, id)`.execute(db)
      await sql`create index databases_site_idx on databases (site_id)`.execute(db)
      await db.schema
        .createTable('database_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('site_id', 'text')
        .addColumn('server_id', 'text', (c) => c.notNull())
        .addColumn('engine', 'text', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('allowed_hosts', 'text', (c) => c.notNull())
        .addColumn('grants', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('locked', 'integer', (c) => c.notNull())
        .addColumn('pending_verifier', 'text')
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('applied_revision', 'integer', (c) => c.notNull())
        .addColumn('drift', 'text')
        .addColumn('job_id', 'text')
        .addColumn('sync_job', 'text')
        .addColumn('sync_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await sql`create unique index database_users_server_name_idx on database_users (server_id, username)`.execute(
        db,
      )
      await sql`create index database_users_customer_idx on database_users (customer_id, id)`.execute(db)
      await db.schema
        .createTable('database_grants')
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('database_id', 'text', (c) => c.notNull())
        .addColumn('access', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('database_grants_pk', ['user_id', 'database_id'])
        .execute()
      await sql`create index database_grants_database_idx on database_grants (database_id)`.execute(db)
      await db.schema
        .createTable('database_checks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('next_at', 'text', (c) => c.notNull())
        .execute()
    },
  },
  {
    // A node's own database server: the node runs it, and there is at most one per node.
    id: '0002_node_database_servers',
    async up(db) {
      await db.schema.alterTable('database_servers').addColumn('node_id', 'text').execute()
      await sql`create unique index database_servers_node_idx on database_servers (node_id)`.execute(db)
    },
  },
]
