// The PostgreSQL adapter of the databases plugin: databases with roles of their own, logins that are members of
// them, through postgres.js.

import { createHash, createHmac, pbkdf2, randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import postgres from 'postgres'
import { type Access, type DatabaseEngine, EngineError, type ServerAccess } from './engine.ts'
import { checkDatabaseName, checkGrants, checkName, namePattern } from './identifiers.ts'
import { KeptConnections } from './kept-connections.ts'

/**
 * The group role every login the adapter makes is a member of (`IN ROLE`): `pg_hba.conf` can name the tenants as
 * `+plinth__tenants`, and a role outside it is never taken for a panel user. `__` keeps it apart from any login.
 */
export const tenantGroupRole = 'plinth__tenants'

/** Databases of the server itself: never created, opened or dropped, whatever a caller asks. */
const systemDatabases = new Set(['postgres', 'template0', 'template1'])

/** Connection failures: the server could not be reached, or went away before answering. */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P03',
])
/** Password authentication failed; role missing, not allowed to log in, or no `pg_hba.conf` entry. */
const loginCodes = new Set(['28P01', '28000'])
const duplicateObject = '42710'
const duplicateDatabase = '42P04'

/** The version the adapter needs: `pg_terminate_backend(pid, timeout)` is 14's. */
const minimumVersionNum = 140000
/** How long ending one session may take before the adapter goes on without waiting (ms). */
const terminateTimeoutMs = 5_000

/** A database's roles, `<database>__owner` and `<database>__reader`, read back into the database and the access. */
const databaseRolePattern = /^([a-z][a-z0-9_]*)__(owner|reader)$/

function checkDatabase(name: string): string {
  return checkDatabaseName(name, systemDatabases, 'PostgreSQL')
}

function checkPassword(password: string): void {
  if (typeof password !== 'string' || password.length === 0)
    throw new Error('A database user needs a password')
  if (password.includes('\0')) throw new Error('A PostgreSQL password cannot hold a NUL character')
}

const ownerOf = (database: string) => `${database}__owner`
const readerOf = (database: string) => `${database}__reader`
const roleFor = (database: string, access: Access) =>
  access === 'readwrite' ? ownerOf(database) : readerOf(database)

const pbkdf2Async = promisify(pbkdf2)

/** Whether SASLprep leaves `password` as it is in PostgreSQL: pure ASCII, which its SASLprep returns unchanged. */
function isAscii(password: string): boolean {
  for (let i = 0; i < password.length; i++) if (password.charCodeAt(i) > 0x7f) return false
  return true
}
const base64 = '[A-Za-z0-9+/]+={0,2}'
const scramShape = new RegExp(`^SCRAM-SHA-256\\$(\\d+):(${base64})\\$(${base64}):(${base64})$`)

/**
 * Whether `value` is a SCRAM-SHA-256 secret PostgreSQL keeps as it is. One of the right shape but with keys of the
 * wrong length the server would hash as a password, so it is not one here either.
 */
function isScramSecret(value: string): boolean {
  const match = scramShape.exec(value)
  if (!match) return false
  const [, iterations = '0', salt = '', storedKey = '', serverKey = ''] = match
  return (
    Number(iterations) > 0 &&
    Buffer.from(salt, 'base64').length > 0 &&
    Buffer.from(storedKey, 'base64').length === 32 &&
    Buffer.from(serverKey, 'base64').length === 32
  )
}

/**
 * The SCRAM-SHA-256 secret of `password` as PostgreSQL stores it (RFC 5802, RFC 7677), for ASCII passwords only:
 * PostgreSQL's SASLprep leaves those as they are, and normalises others in ways only the server should decide.
 * Exported for its test against the server's own.
 */
export async function scramSecret(
  password: string,
  salt = randomBytes(16),
  iterations = 4096,
): Promise<string> {
  if (!isAscii(password)) throw new Error('Only an ASCII password is hashed here')
  const salted = await pbkdf2Async(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256')
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  const storedKey = createHash('sha256').update(clientKey).digest()
  const serverKey = createHmac('sha256', salted).update('Server Key').digest()
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`
}

/** The error a caller sees: the server's message (never a statement, which postgres.js keeps to itself). */
function engineError(error: unknown): EngineError {
  if (error instanceof EngineError) return error
  const { code, message } = error as { code?: string; message?: string }
  if (code && loginCodes.has(code)) return new EngineError(message ?? 'Login refused', 'server_login_failed')
  if (code && unreachableCodes.has(code))
    return new EngineError(`The PostgreSQL server could not be reached (${code})`, 'server_unreachable')
  if (code === '42501') return new EngineError(message ?? 'Permission denied', 'server_privileges_missing')
  return new EngineError(message ?? String(error), 'server_error')
}

async function attempt<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw engineError(error)
  }
}

/** postgres.js's error code, to tell a race lost to another run (the object exists already) from a failure. */
function codeOf(error: unknown): string | undefined {
  return (error as { code?: string }).code
}

type Sql = postgres.Sql

function connect(server: ServerAccess, database: string, max: number): Sql {
  return postgres({
    host: server.host,
    port: server.port,
    username: server.username,
    password: server.password,
    database,
    max,
    idle_timeout: 30,
    connect_timeout: 5,
    prepare: false,
    onnotice: () => {},
    // Statements in a tenant's database must not resolve a name to a function or operator its users made.
    connection: { application_name: 'plinth-databases', search_path: 'pg_catalog' },
  })
}

/** What the adapter needs to know of an existing role before it touches it. */
interface RoleState {
  readonly privileged: boolean
  readonly isAdmin: boolean
  readonly inGroup: boolean
  readonly foreignMemberships: boolean
  readonly ownsDatabase: boolean
  readonly hasMembers: boolean
}

/** The PostgreSQL engine: roles, databases and grants as docs/databases.md describes them. */
export function postgresqlEngine(): DatabaseEngine {
  // The connections to each server's maintenance database.
  const admins = new KeptConnections<Sql>(
    (server) => connect(server, 'postgres', 2),
    (sql) => sql.end({ timeout: 5 }),
  )
  const adminOf = (server: ServerAccess): Sql => admins.of(server)

  /** Runs `work` connected to `database` itself (schemas and default privileges are per database), then closes. */
  async function inDatabase<T>(
    server: ServerAccess,
    database: string,
    work: (sql: Sql) => Promise<T>,
  ): Promise<T> {
    const sql = connect(server, database, 1)
    try {
      return await work(sql)
    } finally {
      await sql.end({ timeout: 5 })
    }
  }

  async function roleExists(sql: Sql, role: string): Promise<boolean> {
    return (await sql`SELECT 1 FROM pg_roles WHERE rolname = ${role}`).length > 0
  }

  async function createRole(sql: Sql, role: string): Promise<void> {
    if (await roleExists(sql, role)) return
    try {
      await sql`CREATE ROLE ${sql(role)} NOLOGIN NOINHERIT`
    } catch (error) {
      if (codeOf(error) !== duplicateObject) throw error
    }
  }

  async function stateOf(sql: Sql, username: string): Promise<RoleState | null> {
    const [row] = await sql`
      SELECT r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolreplication OR r.rolbypassrls AS privileged,
             r.rolname = current_user AS is_admin,
             EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                      WHERE m.member = r.oid AND g.rolname = ${tenantGroupRole}) AS in_group,
             EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                      WHERE m.member = r.oid
                        AND (m.admin_option OR (g.rolname <> ${tenantGroupRole} AND g.rolname !~ '__(owner|reader)$')))
               AS foreign_memberships,
             EXISTS (SELECT FROM pg_database d WHERE d.datdba = r.oid) AS owns_database,
             EXISTS (SELECT FROM pg_auth_members m WHERE m.roleid = r.oid) AS has_members
        FROM pg_roles r
       WHERE r.rolname = ${username}`
    if (!row) return null
    return {
      privileged: row.privileged === true,
      isAdmin: row.is_admin === true,
      inGroup: row.in_group === true,
      foreignMemberships: row.foreign_memberships === true,
      ownsDatabase: row.owns_database === true,
      hasMembers: row.has_members === true,
    }
  }

  /**
   * Refuses to touch a role the adapter did not make: outside the tenants' group, or with anything a tenant login
   * never has. A tenant naming a user like another application's role must not get that role's password changed.
   */
  function guard(username: string, state: RoleState): void {
    if (
      !state.inGroup ||
      state.privileged ||
      state.isAdmin ||
      state.foreignMemberships ||
      state.ownsDatabase ||
      state.hasMembers
    )
      throw new EngineError(`The PostgreSQL role ${username} exists and is not a panel user`, 'server_error')
  }

  async function managedState(sql: Sql, username: string): Promise<RoleState | null> {
    const state = await stateOf(sql, username)
    if (state) guard(username, state)
    return state
  }

  async function existingState(sql: Sql, username: string): Promise<RoleState> {
    const state = await managedState(sql, username)
    if (!state)
      throw new EngineError(`The PostgreSQL user ${username} does not exist on the server`, 'server_error')
    return state
  }

  /**
   * Gives `username` its password. A SCRAM secret (what the plugin hands over) and an ASCII password (hashed here)
   * reach the server as a secret, never as the password. Any other password the server must hash itself (SASLprep):
   * it goes as a bound parameter, read back inside a `DO` block, so that no statement text or error carries it.
   */
  async function applyPassword(
    sql: postgres.TransactionSql,
    username: string,
    password: string,
  ): Promise<void> {
    const secret = isScramSecret(password) ? password : isAscii(password) ? await scramSecret(password) : null
    if (secret !== null) {
      // The secret is only letters, digits, `+/=$:-`, checked by its shape: it cannot leave the literal.
      if (!isScramSecret(secret)) throw new Error('Unexpected SCRAM secret')
      await sql`ALTER ROLE ${sql(username)} PASSWORD ${sql.unsafe(`'${secret}'`)}`
      return
    }
    await sql`SELECT set_config('plinth.role', ${username}, true), set_config('plinth.password', ${password}, true)`
    await sql.unsafe(`DO $$
      BEGIN
        EXECUTE format('ALTER ROLE %I PASSWORD %L', current_setting('plinth.role'), current_setting('plinth.password'));
      EXCEPTION WHEN OTHERS THEN
        -- Raised again without the failed statement as its context, which would quote the password.
        RAISE EXCEPTION USING ERRCODE = SQLSTATE, MESSAGE = SQLERRM;
      END $$`)
  }

  /** Ends the sessions of `username` (in `databases` only, when given) and waits for them to be gone. */
  async function terminate(sql: Sql, username: string, databases?: readonly string[]): Promise<void> {
    if (databases?.length === 0) return
    await sql`
      SELECT pg_terminate_backend(pid, ${terminateTimeoutMs})
        FROM pg_stat_activity
       WHERE usename = ${username} AND pid <> pg_backend_pid()
         ${databases ? sql`AND datname IN ${sql(databases)}` : sql``}`
  }

  /**
   * Lets `role` go from every database where it owns objects or holds privileges, so that `DROP ROLE` succeeds:
   * what it owns goes to the database's own `__owner` role (else to the administrator), its privileges are dropped.
   */
  async function release(server: ServerAccess, sql: Sql, role: string): Promise<void> {
    const databases = await sql`
      SELECT DISTINCT d.datname
        FROM pg_shdepend s
        JOIN pg_database d ON d.oid = s.dbid
        JOIN pg_roles r ON r.oid = s.refobjid AND s.refclassid = 'pg_authid'::regclass
       WHERE r.rolname = ${role} AND d.datallowconn`
    for (const { datname } of databases) {
      const database = String(datname)
      const heir = namePattern.test(database) ? ownerOf(database) : null
      await inDatabase(server, database, async (db) => {
        const [me] = await db`SELECT current_user AS name`
        const to = heir && heir !== role && (await roleExists(db, heir)) ? heir : String(me?.name)
        await db`REASSIGN OWNED BY ${db(role)} TO ${db(to)}`
        await db`DROP OWNED BY ${db(role)}`
      })
    }
  }

  async function dropRole(server: ServerAccess, sql: Sql, role: string): Promise<void> {
    if (!(await roleExists(sql, role))) return
    await release(server, sql, role)
    await sql`DROP ROLE IF EXISTS ${sql(role)}`
  }

  /** The databases `username` is granted on, by the database roles it is a member of. */
  async function membershipsOf(sql: Sql, username: string): Promise<Map<string, string>> {
    const found = await sql`
      SELECT g.rolname
        FROM pg_auth_members m
        JOIN pg_roles g ON g.oid = m.roleid
        JOIN pg_roles u ON u.oid = m.member
       WHERE u.rolname = ${username}`
    const roles = new Map<string, string>()
    for (const { rolname } of found) {
      const match = databaseRolePattern.exec(String(rolname))
      if (match) roles.set(String(rolname), match[1] as string)
    }
    return roles
  }

  return {
    name: 'postgresql',

    check(server) {
      return attempt(async () => {
        const sql = connect(server, 'postgres', 1)
        try {
          const [settings] = await sql`
            SELECT current_setting('server_version') AS version,
                   current_setting('server_version_num')::int AS number`
          const version = String(settings?.version)
          if (Number(settings?.number) < minimumVersionNum)
            throw new EngineError(
              `The server runs PostgreSQL ${version}; the panel needs 14 or later`,
              'server_error',
            )
          const [me] = await sql`
            SELECT rolsuper, rolcreatedb, rolcreaterole,
                   pg_has_role(current_user, 'pg_signal_backend', 'USAGE') AS can_signal
              FROM pg_roles WHERE rolname = current_user`
          if (me?.rolsuper !== true) {
            // Without pg_signal_backend, locking a user or dropping a database would leave its sessions running.
            const missing = [
              me?.rolcreatedb === true ? null : 'CREATEDB',
              me?.rolcreaterole === true ? null : 'CREATEROLE',
              me?.can_signal === true ? null : 'membership of pg_signal_backend',
            ].filter((what) => what !== null)
            if (missing.length > 0)
              throw new EngineError(
                `${server.username} is not a superuser and lacks ${missing.join(', ')}`,
                'server_privileges_missing',
              )
          }
          return { version }
        } finally {
          await sql.end({ timeout: 5 })
        }
      })
    },

    async createDatabase(server, name) {
      checkDatabase(name)
      const owner = ownerOf(name)
      const reader = readerOf(name)
      await attempt(async () => {
        const sql = adminOf(server)
        const [state] = await sql`
          SELECT EXISTS (SELECT FROM pg_database WHERE datname = ${name}) AS database,
                 EXISTS (SELECT FROM pg_roles WHERE rolname = ${owner}) AS owner,
                 (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser`
        // The roles are made before the database: a database without its owner role was not made here.
        if (state?.database === true && state.owner !== true)
          throw new EngineError(
            `The database ${name} exists and was not created by the panel`,
            'server_error',
          )
        await createRole(sql, owner)
        await createRole(sql, reader)
        // A non-superuser administrator may hand the schema and its default privileges to a role it is a member of.
        if (state?.superuser !== true) await sql`GRANT ${sql(owner)} TO CURRENT_USER`
        if (state?.database !== true) {
          try {
            await sql`CREATE DATABASE ${sql(name)}`
          } catch (error) {
            if (codeOf(error) !== duplicateDatabase) throw error
          }
        }
        await sql`REVOKE CONNECT, TEMPORARY ON DATABASE ${sql(name)} FROM PUBLIC`
        await sql`GRANT CONNECT, TEMPORARY ON DATABASE ${sql(name)} TO ${sql(owner)}`
        await sql`GRANT CONNECT ON DATABASE ${sql(name)} TO ${sql(reader)}`
        await inDatabase(server, name, async (db) => {
          await db`ALTER SCHEMA public OWNER TO ${db(owner)}`
          await db`REVOKE ALL ON SCHEMA public FROM PUBLIC`
          await db`GRANT USAGE ON SCHEMA public TO ${db(reader)}`
          await db`ALTER DEFAULT PRIVILEGES FOR ROLE ${db(owner)} IN SCHEMA public GRANT SELECT ON TABLES TO ${db(reader)}`
          await db`ALTER DEFAULT PRIVILEGES FOR ROLE ${db(owner)} IN SCHEMA public GRANT SELECT ON SEQUENCES TO ${db(reader)}`
          // Making a large object needs no privilege: anyone who may connect, a readonly login too, could store
          // any amount. Only the owner role (readwrite) may. A non-superuser administrator cannot change
          // pg_catalog's functions (docs/databases.md says so).
          if (state?.superuser === true) {
            await db`REVOKE EXECUTE ON FUNCTION pg_catalog.lo_create(oid), pg_catalog.lo_creat(integer), pg_catalog.lo_from_bytea(oid, bytea) FROM PUBLIC`
            await db`GRANT EXECUTE ON FUNCTION pg_catalog.lo_create(oid), pg_catalog.lo_creat(integer), pg_catalog.lo_from_bytea(oid, bytea) TO ${db(owner)}`
          }
        })
      })
    },

    async dropDatabase(server, name) {
      checkDatabase(name)
      await attempt(async () => {
        const sql = adminOf(server)
        const [state] = await sql`
          SELECT EXISTS (SELECT FROM pg_database WHERE datname = ${name}) AS database,
                 EXISTS (SELECT FROM pg_roles WHERE rolname = ${ownerOf(name)}) AS owner`
        if (state?.database === true && state.owner !== true)
          throw new EngineError(
            `The database ${name} was not created by the panel: not dropped`,
            'server_error',
          )
        // FORCE ends the sessions connected to it first (and fails if one cannot be ended).
        await sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`
        await dropRole(server, sql, ownerOf(name))
        await dropRole(server, sql, readerOf(name))
      })
    },

    async databaseSizes(server, names) {
      for (const name of names) checkName(name, 'database')
      if (names.length === 0) return new Map()
      return attempt(async () => {
        const sql = adminOf(server)
        const found = await sql`
          SELECT datname, pg_database_size(oid)::text AS size FROM pg_database WHERE datname IN ${sql(names)}`
        return new Map(found.map((row) => [String(row.datname), Number(row.size)]))
      })
    },

    async createUser(server, username, password) {
      checkName(username, 'user')
      checkPassword(password)
      await attempt(async () => {
        const sql = adminOf(server)
        await createRole(sql, tenantGroupRole)
        if (!(await managedState(sql, username))) {
          try {
            await sql.begin(async (tx) => {
              await tx`
                CREATE ROLE ${tx(username)} LOGIN INHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
                  IN ROLE ${tx(tenantGroupRole)}`
              await applyPassword(tx, username, password)
            })
            return
          } catch (error) {
            if (codeOf(error) !== duplicateObject) throw error
            await existingState(sql, username)
          }
        }
        await sql.begin((tx) => applyPassword(tx, username, password))
      })
    },

    async setPassword(server, username, password) {
      checkName(username, 'user')
      checkPassword(password)
      await attempt(async () => {
        const sql = adminOf(server)
        await existingState(sql, username)
        await sql.begin((tx) => applyPassword(tx, username, password))
      })
    },

    async setHosts(_server, username, hosts) {
      // Which hosts may log in is pg_hba.conf's, not a role's: there is nothing to change on the server.
      checkName(username, 'user')
      if (!Array.isArray(hosts)) throw new Error('hosts must be a list')
    },

    async dropUser(server, username) {
      checkName(username, 'user')
      await attempt(async () => {
        const sql = adminOf(server)
        if (!(await managedState(sql, username))) return
        // NOLOGIN first, so that no session starts between ending the sessions and dropping the role.
        await sql`ALTER ROLE ${sql(username)} NOLOGIN`
        await terminate(sql, username)
        await release(server, sql, username)
        await sql`DROP ROLE IF EXISTS ${sql(username)}`
      })
    },

    async setGrants(server, username, grants) {
      checkName(username, 'user')
      const wanted = checkGrants(grants, checkDatabase)
      await attempt(async () => {
        const sql = adminOf(server)
        await existingState(sql, username)
        const wantedRoles = new Map(
          [...wanted].map(([database, access]) => [roleFor(database, access), database]),
        )
        if (wantedRoles.size > 0) {
          const present =
            await sql`SELECT rolname FROM pg_roles WHERE rolname IN ${sql([...wantedRoles.keys()])}`
          const found = new Set(present.map((row) => String(row.rolname)))
          for (const [role, database] of wantedRoles)
            if (!found.has(role))
              throw new EngineError(`The database ${database} is not set up on the server`, 'server_error')
        }
        const held = await membershipsOf(sql, username)
        const narrowed = new Set<string>()
        await sql.begin(async (tx) => {
          for (const [role, database] of held)
            if (!wantedRoles.has(role)) {
              await tx`REVOKE ${tx(role)} FROM ${tx(username)}`
              narrowed.add(database)
            }
          for (const role of wantedRoles.keys())
            if (!held.has(role)) await tx`GRANT ${tx(role)} TO ${tx(username)}`
          // A readwrite user acts as the database's owner role from its login on, so what it creates belongs to that
          // role, and the default privileges give the readers SELECT on it.
          for (const [database, access] of wanted)
            if (access === 'readwrite')
              await tx`ALTER ROLE ${tx(username)} IN DATABASE ${tx(database)} SET role = ${tx(ownerOf(database))}`
          const settings = await tx`
            SELECT d.datname
              FROM pg_db_role_setting s
              JOIN pg_database d ON d.oid = s.setdatabase
              JOIN pg_roles r ON r.oid = s.setrole
             WHERE r.rolname = ${username}
               AND EXISTS (SELECT FROM unnest(s.setconfig) c WHERE c LIKE 'role=%')`
          for (const { datname } of settings)
            if (wanted.get(String(datname)) !== 'readwrite')
              await tx`ALTER ROLE ${tx(username)} IN DATABASE ${tx(String(datname))} RESET role`
        })
        // Tables made before the reader role had default privileges on them (by a user acting as itself) too.
        for (const [database, access] of wanted)
          if (access !== 'readwrite')
            await inDatabase(server, database, async (db) => {
              await db`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${db(readerOf(database))}`
              await db`GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO ${db(readerOf(database))}`
            })
        // A session goes on as the role it set at login whatever membership is revoked after: the sessions in the
        // databases whose access shrank end, so what was taken away is gone at once.
        await terminate(sql, username, [...narrowed])
      })
    },

    async readGrants(server, username) {
      checkName(username, 'user')
      return attempt(async () => {
        const access = new Map<string, Access>()
        for (const [role, database] of await membershipsOf(adminOf(server), username)) {
          // A member of both roles of a database reads as readwrite, the wider of the two.
          if (access.get(database) !== 'readwrite')
            access.set(database, role === ownerOf(database) ? 'readwrite' : 'readonly')
        }
        return [...access]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([database, granted]) => ({ database, access: granted }))
      })
    },

    async setLocked(server, username, locked) {
      checkName(username, 'user')
      await attempt(async () => {
        const sql = adminOf(server)
        if (!(await managedState(sql, username))) return
        if (locked) {
          await sql`ALTER ROLE ${sql(username)} NOLOGIN`
          await terminate(sql, username)
        } else {
          await sql`ALTER ROLE ${sql(username)} LOGIN`
        }
      })
    },

    async namesStartingWith(server, prefix) {
      checkName(prefix, 'prefix')
      return attempt(async () => {
        const sql = adminOf(server)
        const pattern = `${prefix.replace(/[\\_%]/g, '\\$&')}%`
        const databases = await sql`SELECT datname AS name FROM pg_database WHERE datname LIKE ${pattern}`
        const roles = await sql`SELECT rolname AS name FROM pg_roles WHERE rolname LIKE ${pattern}`
        const named = new Set<string>()
        const users: string[] = []
        for (const { name } of databases) named.add(String(name))
        for (const { name } of roles) {
          const role = String(name)
          // A database's own roles name it, made before it and dropped after: listed as the database.
          const match = databaseRolePattern.exec(role)
          if (match) named.add(match[1] as string)
          else users.push(role)
        }
        const ours = (name: string) => name.startsWith(prefix)
        return { databases: [...named].filter(ours).sort(), users: users.filter(ours).sort() }
      })
    },

    async handOverDefinitions(_server, database, username, heir) {
      // Whatever a login acting as the database's owner role makes belongs to that role, which stays.
      checkDatabase(database)
      checkName(username, 'user')
      checkName(heir.username, 'user')
      return 0
    },

    close: (server) => admins.close(server),
  }
}
