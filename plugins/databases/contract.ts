// The databases plugin's public contract: its resources as the API shows them, its scopes and its events.

import {
  type Db,
  defineDependents,
  defineService,
  enumOf,
  type Static,
  type Trx,
  t,
} from '../../core/index.ts'
import { type EngineName, engineNames } from './engines/engine.ts'

export { type EngineName, engineNames } from './engines/engine.ts'

/** Scope names the plugin declares. */
export const databaseScopes = {
  read: 'database:read',
  manage: 'database:manage',
  /** Platform staff: the servers databases are placed on. */
  serverRead: 'database-server:read',
  serverManage: 'database-server:manage',
} as const

/** States of a database server: only `active` ones receive new databases. */
export const serverStatuses = ['active', 'draining', 'disabled'] as const
/** Lifecycle states of a database. */
export const databaseStatuses = ['provisioning', 'active', 'failed', 'deleting'] as const
/** Lifecycle states of a database user. */
export const databaseUserStatuses = ['provisioning', 'active', 'failed', 'deleting'] as const

const Engine = enumOf(engineNames, { description: 'The database engine: `mariadb` or `postgresql`.' })

export const DatabaseServer = t.Object(
  {
    id: t.String({ description: 'Identifier, `dbs_…`.' }),
    name: t.String({ description: 'Name of the server, unique in the installation.' }),
    engine: Engine,
    host: t.String({ description: 'Host name or address the panel and the sites reach it at.' }),
    port: t.Integer({ description: 'TCP port.' }),
    username: t.String({
      description: 'The administrator the panel connects as (its password is never shown).',
    }),
    status: enumOf(serverStatuses, {
      description:
        '`active` servers receive new databases; `draining` keeps its databases and receives none; `disabled` is out of use.',
    }),
    version: t.String({
      description: 'The server’s version, as it said at the last successful connection test.',
    }),
    capacity: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
      description: 'How many databases it may hold; null for no limit. A full server receives no new ones.',
    }),
    nodeId: t.Union([t.String(), t.Null()], {
      description:
        'The node whose own server it is, `nod_…` (a node with MariaDB runs one for its sites, on its loopback, and the panel registers it): the panel reaches it through the node, whose sites alone connect to it. Null for a server staff added.',
    }),
    databases: t.Integer({ description: 'How many databases it holds.' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'DatabaseServer' },
)
export type DatabaseServer = Static<typeof DatabaseServer>

export const Database = t.Object(
  {
    id: t.String({ description: 'Identifier, `db_…`.' }),
    customerId: t.String({ description: 'The owning customer, `cus_…`.' }),
    siteId: t.Union([t.String(), t.Null()], {
      description: 'The site it belongs to, `site_…`: deleting the site deletes the database.',
    }),
    engine: Engine,
    name: t.String({
      description:
        'The real name on the server: the customer’s prefix, `_`, and the name asked for (docs/databases.md).',
    }),
    serverId: t.String({ description: 'The server it lives on, `dbs_…`.' }),
    host: t.String({ description: 'Where clients connect.' }),
    port: t.Integer({ description: 'TCP port clients connect to.' }),
    status: enumOf(databaseStatuses, {
      description:
        '`provisioning` until its job made it on the server, then `active`; `deleting` while removed.',
    }),
    sizeBytes: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
      description:
        'Its size on the server at the last measurement (`sizeMeasuredAt`); null before the first.',
    }),
    sizeMeasuredAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    jobId: t.Union([t.String(), t.Null()], { description: 'The latest job working on it, `job_…`.' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Database' },
)
export type Database = Static<typeof Database>

export const DatabaseGrant = t.Object(
  {
    databaseId: t.String({
      maxLength: 64,
      description: 'A database of the same customer on the same server, `db_…`.',
    }),
    access: t.Union([t.Literal('readwrite'), t.Literal('readonly')], {
      description:
        '`readwrite`: read, write and change the schema; `readonly`: read, including tables created later.',
    }),
  },
  { $id: 'DatabaseGrant' },
)
export type DatabaseGrant = Static<typeof DatabaseGrant>

export const DatabaseUser = t.Object(
  {
    id: t.String({ description: 'Identifier, `dbu_…`.' }),
    customerId: t.String({ description: 'The owning customer, `cus_…`.' }),
    engine: Engine,
    serverId: t.String({ description: 'The server the login lives on, `dbs_…`.' }),
    username: t.String({
      description: 'The real login name on the server (the customer’s prefix, `_`, the name).',
    }),
    host: t.String({ description: 'Where clients connect.' }),
    port: t.Integer({ description: 'TCP port clients connect to.' }),
    allowedHosts: t.Array(t.String(), {
      description:
        'The client hosts the login is accepted from (MariaDB accounts; on PostgreSQL the server’s pg_hba.conf decides).',
    }),
    grants: t.Array(DatabaseGrant, { description: 'What it may do, database by database.' }),
    status: enumOf(databaseUserStatuses, {
      description:
        '`provisioning` until its job made the login (and its password, grants and hosts) real on the server; `active` then.',
    }),
    locked: t.Boolean({ description: 'Whether the login is locked because its customer is suspended.' }),
    drift: t.Union(
      [
        t.Object(
          {
            detectedAt: t.String({ format: 'date-time' }),
            onServer: t.Array(DatabaseGrant, {
              description: 'The grants the server holds on the customer’s own databases.',
            }),
            unknown: t.Integer({
              description:
                'How many databases that are not the customer’s (another customer’s, or ones the panel does not know) the server grants the login; never named, since they are not the customer’s to see.',
            }),
          },
          { description: 'How the server’s grants differ from `grants`.' },
        ),
        t.Null(),
      ],
      {
        description:
          'Set when the periodic check found the server’s grants different from the panel’s; the next change of the user re-applies them. Null when they agree.',
      },
    ),
    jobId: t.Union([t.String(), t.Null()], { description: 'The latest job working on it, `job_…`.' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'DatabaseUser' },
)
export type DatabaseUser = Static<typeof DatabaseUser>

/** A site's own database and login, as another plugin (WordPress) has them made for a site it installs. */
export interface SiteDatabase {
  readonly databaseId: string
  readonly userId: string
  /** Where clients connect, the real database name and login. */
  readonly host: string
  readonly port: number
  readonly name: string
  readonly username: string
  /** Whether both are made on the server and the login's latest password is set there. */
  readonly ready: boolean
  /** `failed` when either gave up (its job's `error` says why). */
  readonly failed: boolean
  /** Why the last attempt to make either failed while its job tries again; null when none has failed. */
  readonly trouble: { readonly code: string; readonly message: string } | null
}

/**
 * Databases for plugins that install applications into sites: each call runs in the caller's transaction, with the
 * installation as the actor, audited and sent as events like any change of a database or user.
 */
export interface SiteDatabases {
  /**
   * The site's database and readwrite login named `name` on an active server of `engine`, made now (their jobs
   * started) unless the site has them already: on the own server of the site's node (`nodeId`) when it has one with
   * room, else on one staff added. Tied to the site: deleting the site deletes them.
   */
  ensure(
    trx: Trx,
    request: {
      readonly customerId: string
      readonly siteId: string
      /** The node the site runs on. */
      readonly nodeId: string | null
      readonly name: string
      readonly engine: EngineName
    },
  ): Promise<SiteDatabase>
  /**
   * Whether a site on `nodeId` could have a database of `engine` now: its node's own server or one staff added,
   * active with room (what `ensure` would place it on), read through `db`.
   */
  canPlace(db: Db, engine: EngineName, nodeId: string): Promise<boolean>
  /** Gives the login a new password (its job sets it on the server); `ready` turns true once it has. */
  setPassword(trx: Trx, userId: string, password: string): Promise<void>
  /** Where the site's database and login stand, or null when they are gone. */
  find(db: Db, ids: { readonly databaseId: string; readonly userId: string }): Promise<SiteDatabase | null>
}

/** The databases plugin's service for site types. */
export const siteDatabases = defineService<SiteDatabases>({
  id: 'databases.siteDatabases',
  owner: 'databases',
  description: 'Makes a site’s own database and login for plugins that install applications (WordPress).',
})

/** A database server as its dependents see it when it is to be deleted. */
export interface DatabaseServerRef {
  readonly id: string
  readonly name: string
}

/**
 * What keeps a database server: its databases and database users (counted by the databases plugin itself), and
 * whatever other plugins hang on servers; while any counts more than 0, `DELETE /database-servers/{id}` is refused
 * with 409 `database_server_in_use`.
 * @example context.extensionPoint(databaseServerDependents).add({ name: 'backups', blocking: (db, server) => backupsOn(db, server.id) })
 */
export const databaseServerDependents = defineDependents<DatabaseServerRef>({
  id: 'databases.serverDependents',
  owner: 'databases',
  description: 'What keeps a database server from being deleted (its databases and users, …).',
})

/** A login to one database, made for a run on a node and dropped after it. */
export interface TemporaryLogin {
  readonly engine: EngineName
  /** Where the node connects: the server's address as the node reaches it (a node's own server at 127.0.0.1). */
  readonly host: string
  readonly port: number
  /** The database's real name on its server. */
  readonly database: string
  readonly username: string
  readonly password: string
}

/** A temporary login, and how to end it (drops the login, and a scratch database with it). Idempotent. */
export interface LeasedLogin {
  readonly login: TemporaryLogin
  release(): Promise<void>
}

/** A database tied to a site, as backups see it. */
export interface SiteDatabaseRef {
  readonly id: string
  /** The real name on its server. */
  readonly name: string
  readonly engine: EngineName
  readonly serverId: string
  readonly status: (typeof databaseStatuses)[number]
}

/**
 * Access to sites' databases for plugins that copy them (backups): logins made for one run on a node, so the server's
 * administrator never leaves the panel (nor a node's own server's, the node). Logins and scratch databases a crash
 * left behind are dropped by the plugin later.
 */
export interface DatabaseBackupAccess {
  /** The databases tied to the site (`siteId`), read through `db`. */
  ofSite(db: Db, siteId: string): Promise<readonly SiteDatabaseRef[]>
  /**
   * A login to the active database `databaseId` that reads it (`readonly`: enough for `mariadb-dump
   * --single-transaction` and `pg_dump`) or may replace its tables (`readwrite`: a restore), usable from `nodeId`.
   * Throws a `Problem` or `JobFailure`-worthy `EngineError` when the server refuses.
   */
  lease(databaseId: string, access: 'readonly' | 'readwrite', nodeId: string | null): Promise<LeasedLogin>
  /** An empty scratch database on the server of `databaseId`, with a readwrite login to it, usable from `nodeId`. */
  scratch(databaseId: string, nodeId: string | null): Promise<LeasedLogin>
}

/** The databases plugin's service for backups. */
export const databaseBackupAccess = defineService<DatabaseBackupAccess>({
  id: 'databases.backupAccess',
  owner: 'databases',
  description:
    'Temporary logins to sites’ databases and scratch databases, for backups and restores on nodes.',
})
