// What the databases plugin asks of a database server, whatever its engine: the statements that make databases,
// users and grants on it, idempotent so a job repeated after a crash changes nothing the second time.

/** The engines the plugin provisions on. */
export const engineNames = ['mariadb', 'postgresql'] as const
export type EngineName = (typeof engineNames)[number]

/** How the panel reaches a server as its administrator. */
export interface ServerAccess {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly password: string
}

/**
 * What a user may do in one database. `dump` is `readonly` and what a dump must see besides the rows (MariaDB shows
 * triggers and events only to who may make them): the panel gives it only to its temporary logins for backups.
 */
export type Access = 'readwrite' | 'readonly' | 'dump'

/** One grant as the server holds it: a database (its real name) and the access. */
export interface Grant {
  readonly database: string
  readonly access: Access
}

/**
 * A server refused or could not be reached. `code` is stable (the API's problem and job error codes):
 * `server_unreachable` (connection refused, timeout, DNS), `server_login_failed` (bad admin credentials),
 * `server_privileges_missing` (the admin cannot create databases or users), `server_error` (anything else).
 */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'server_unreachable'
      | 'server_login_failed'
      | 'server_privileges_missing'
      | 'server_error',
  ) {
    super(message)
    this.name = 'EngineError'
  }
}

/**
 * One engine's statements. Every name passed in has already matched the plugin's strict pattern
 * (`^[a-z][a-z0-9_]*$`, at most 48 characters, never `__`), and is still quoted by the driver's identifier escaping;
 * passwords are bound or escaped by the driver, never built into SQL by hand and never logged. Every operation is
 * idempotent: creating what exists, dropping what is gone, and granting what is granted all succeed.
 */
export interface DatabaseEngine {
  readonly name: EngineName
  /**
   * Connects as the administrator and checks it may create databases and users (the server's test before it is
   * added); answers the server's version. Throws {@link EngineError}.
   */
  check(server: ServerAccess): Promise<{ readonly version: string }>
  /**
   * Creates the database `name` if it does not exist, closed to everyone but the users granted on it (PostgreSQL:
   * `CONNECT` and `TEMPORARY` revoked from `PUBLIC`, the `public` schema owned by the database's own role).
   */
  createDatabase(server: ServerAccess, name: string): Promise<void>
  /** Drops the database `name` (and any role of its own) if it exists, ending its sessions first. */
  dropDatabase(server: ServerAccess, name: string): Promise<void>
  /** The size in bytes of each of `names` that exists. */
  databaseSizes(server: ServerAccess, names: readonly string[]): Promise<ReadonlyMap<string, number>>
  /**
   * Creates the login `username` with `password`, able to log in from each of `hosts` (MariaDB accounts are per
   * host; PostgreSQL's client authentication is the server's `pg_hba.conf`, so `hosts` is not applied there). An
   * existing login of that name gets `password`, so a repeated create ends with exactly one. `password` is the
   * verifier the server stores (passwords.ts: MariaDB's `*` hash, PostgreSQL's SCRAM secret), which the panel gives
   * instead of the password; a plain password is accepted too. PostgreSQL logins join the group role
   * `plinth__tenants`, so `pg_hba.conf` rules can name them. Never given
   * `SUPERUSER`, `CREATEROLE`, `CREATEDB`, `FILE`, `PROCESS`, `SUPER` or `GRANT OPTION`.
   */
  createUser(
    server: ServerAccess,
    username: string,
    password: string,
    hosts: readonly string[],
  ): Promise<void>
  /** Sets the password (or its verifier) of `username` on every host it has; the old one stops working at once. */
  setPassword(
    server: ServerAccess,
    username: string,
    password: string,
    hosts: readonly string[],
  ): Promise<void>
  /**
   * Makes the hosts `username` may log in from exactly `hosts` (MariaDB: accounts added with the same password and
   * grants, others dropped; PostgreSQL: nothing to do).
   */
  setHosts(server: ServerAccess, username: string, hosts: readonly string[]): Promise<void>
  /** Drops the login `username` (every host) if it exists, ending its sessions. */
  dropUser(server: ServerAccess, username: string, hosts: readonly string[]): Promise<void>
  /**
   * Makes the grants of `username` exactly `grants`: grants what is missing, changes what differs, revokes the
   * rest. `readonly` covers tables created later by readwrite users of the same database.
   */
  setGrants(
    server: ServerAccess,
    username: string,
    grants: readonly Grant[],
    hosts: readonly string[],
  ): Promise<void>
  /** The grants `username` holds on the server, read back from the server (for the drift check). */
  readGrants(server: ServerAccess, username: string, hosts: readonly string[]): Promise<readonly Grant[]>
  /** Locks (`ACCOUNT LOCK`, `NOLOGIN`) or unlocks `username`; locking ends its sessions. */
  setLocked(server: ServerAccess, username: string, locked: boolean, hosts: readonly string[]): Promise<void>
  /**
   * The databases and logins whose names start with `prefix` (a name `checkName` takes), for the sweep of the panel's
   * temporary ones. A database half made (PostgreSQL: its roles without it) is listed too, so dropping it ends it.
   */
  namesStartingWith(
    server: ServerAccess,
    prefix: string,
  ): Promise<{ readonly databases: readonly string[]; readonly users: readonly string[] }>
  /**
   * Makes `heir` (an account of a login: its name and one of its hosts) the definer of the views, triggers, routines
   * and events of `database` that `username` defines, and answers how many. MariaDB runs them as their definer, and
   * fails them once the definer is dropped: a restore loaded by a temporary login defines them all, and they must
   * outlive it. PostgreSQL's objects belong to the database's owner role: nothing to do there.
   */
  handOverDefinitions(
    server: ServerAccess,
    database: string,
    username: string,
    heir: { readonly username: string; readonly host: string },
  ): Promise<number>
  /** Closes the connections kept to `server` (or to every server). */
  close(server?: ServerAccess): Promise<void>
}
