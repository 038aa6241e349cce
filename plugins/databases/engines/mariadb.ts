// The MariaDB adapter of the databases plugin: databases, per-host accounts and database-level grants, through mysql2.

import mysql, { type Pool, type PoolOptions, type RowDataPacket } from 'mysql2/promise'
import { type Access, type DatabaseEngine, EngineError, type Grant, type ServerAccess } from './engine.ts'
import { checkDatabaseName, checkGrants, checkName } from './identifiers.ts'
import { KeptConnections } from './kept-connections.ts'

/** The privileges of each access, as `GRANT` spells them. */
const privilegesOf: Record<Access, ReadonlySet<string>> = {
  readwrite: new Set([
    'SELECT',
    'INSERT',
    'UPDATE',
    'DELETE',
    'CREATE',
    'DROP',
    'INDEX',
    'ALTER',
    'CREATE TEMPORARY TABLES',
    'LOCK TABLES',
    'EXECUTE',
    'CREATE VIEW',
    'SHOW VIEW',
    'CREATE ROUTINE',
    'ALTER ROUTINE',
    'EVENT',
    'TRIGGER',
    'REFERENCES',
  ]),
  readonly: new Set(['SELECT', 'SHOW VIEW']),
  // `mariadb-dump --single-transaction` leaves out, without a word, the triggers its login may not make (SHOW
  // TRIGGERS lists only those), and stops at `--events` without EVENT. Neither changes a row: what such a login makes
  // runs as that login, which reads only, and fails once the login is dropped. Routines' bodies stay out of reach
  // before 11.3's SHOW CREATE ROUTINE (only SELECT on mysql.proc, every customer's, would show them). LOCK TABLES is
  // not needed: a single transaction locks nothing.
  dump: new Set(['SELECT', 'SHOW VIEW', 'TRIGGER', 'EVENT']),
}

/** Every privilege column of `mysql.db` and its name in `GRANT`/`REVOKE`. */
const dbColumns: readonly (readonly [column: string, privilege: string])[] = [
  ['Select_priv', 'SELECT'],
  ['Insert_priv', 'INSERT'],
  ['Update_priv', 'UPDATE'],
  ['Delete_priv', 'DELETE'],
  ['Create_priv', 'CREATE'],
  ['Drop_priv', 'DROP'],
  ['Grant_priv', 'GRANT OPTION'],
  ['References_priv', 'REFERENCES'],
  ['Index_priv', 'INDEX'],
  ['Alter_priv', 'ALTER'],
  ['Create_tmp_table_priv', 'CREATE TEMPORARY TABLES'],
  ['Lock_tables_priv', 'LOCK TABLES'],
  ['Create_view_priv', 'CREATE VIEW'],
  ['Show_view_priv', 'SHOW VIEW'],
  ['Create_routine_priv', 'CREATE ROUTINE'],
  ['Alter_routine_priv', 'ALTER ROUTINE'],
  ['Execute_priv', 'EXECUTE'],
  ['Event_priv', 'EVENT'],
  ['Trigger_priv', 'TRIGGER'],
  ['Delete_history_priv', 'DELETE HISTORY'],
]
const dbColumnList = dbColumns.map(([column]) => column).join(', ')

/**
 * What the administrator must hold on `*.*`: the privileges it hands out (one can only grant what one has), making
 * users, and seeing and ending other users' sessions (without them locking an account would leave its sessions
 * running). `SUPER` stands in for `CONNECTION ADMIN` on 10.x.
 */
const adminPrivileges = [
  ...privilegesOf.readwrite,
  'CREATE USER',
  'GRANT OPTION',
  'PROCESS',
  'CONNECTION ADMIN',
]

/** Schemas of the server itself: never created, granted or dropped, whatever a caller asks. */
const systemDatabases = new Set(['mysql', 'sys', 'information_schema', 'performance_schema'])

/**
 * Marks the databases this adapter created, so that it never takes over or drops one it did not: MariaDB has no
 * owner of a database to tell them apart otherwise.
 */
const databaseComment = 'Managed by Plinth'

/** Longest wait for a table lock before `DROP DATABASE` gives up (the server's default is a year). */
const dropLockWaitSeconds = 30

/** `LIKE`'s wildcards and escape, escaped: a prefix matched as it is written. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\_%]/g, '\\$&')}%`
}

/** Connection error codes that mean the server could not be reached at all. */
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
])
/** Access denied (1045), host not allowed to connect (1130), account locked (4151). */
const loginErrnos = new Set([1045, 1130, 4151])
/** The administrator lacks a privilege: on a database, a table, a global privilege, `KILL`, or `GRANT`. */
const privilegeErrnos = new Set([1044, 1142, 1227, 1095, 1410, 1211])
/** `KILL` of a session that ended meanwhile. */
const unknownThread = 1094
/**
 * A grant that is not there to revoke (ER_NONEXISTING_GRANT, _TABLE_GRANT, _PROC_GRANT): gone already, as a revoke
 * wants, when the account or the grant was dropped between reading the grants and revoking them (a site's login
 * and its database removed at once).
 */
const grantGone = new Set([1141, 1147, 1403])

/** What MariaDB's `Host` column accepts that an administrator would write: names, addresses, `%`/`_` patterns, masks. */
const hostPattern = /^[A-Za-z0-9.:%_/-]{1,255}$/

function checkDatabase(name: string): string {
  return checkDatabaseName(name, systemDatabases, 'MariaDB')
}

function checkHosts(hosts: readonly string[]): string[] {
  if (!Array.isArray(hosts) || hosts.length === 0) throw new Error('A MariaDB user needs at least one host')
  for (const host of hosts)
    if (typeof host !== 'string' || !hostPattern.test(host))
      throw new Error(`Invalid host ${JSON.stringify(host)}`)
  return [...new Set(hosts)]
}

function checkPassword(password: string): void {
  if (typeof password !== 'string' || password.length === 0)
    throw new Error('A database user needs a password')
}

/** A `mysql_native_password` hash, as `PASSWORD()` gives it: what the plugin hands over instead of the password. */
const nativeHash = /^\*[0-9A-F]{40}$/

/**
 * How a statement sets `password`: the plugin gives the stored hash (so the password itself never reaches the
 * server), a caller may give the password; told apart by shape, as PostgreSQL itself tells its verifiers.
 */
function identifiedBy(password: string): string {
  return nativeHash.test(password) ? 'IDENTIFIED BY PASSWORD ?' : 'IDENTIFIED BY ?'
}

/**
 * The database name as a grant pattern: in `GRANT ... ON db.*` `_` and `%` are wildcards, so a grant on `shop_a1`
 * unescaped would also open `shopXa1`.
 */
function grantPattern(name: string): string {
  return name.replace(/[\\_%]/g, '\\$&')
}

/** The database a `mysql.db` pattern names, or null when it is a wildcard pattern matching more than one. */
function databaseOfPattern(pattern: string): string | null {
  let name = ''
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string
    if (char === '\\' && i + 1 < pattern.length) {
      name += pattern[++i]
    } else if (char === '_' || char === '%') {
      return null
    } else {
      name += char
    }
  }
  return name
}

/**
 * The access a set of database privileges amounts to. A set that is exactly neither (granted by hand, or by an older
 * version) reads as `readwrite` as soon as it holds any privilege beyond reading, `readonly` otherwise: the drift
 * check then sees the widest thing the user can do, never less.
 */
function accessOf(privileges: ReadonlySet<string>): Access {
  for (const privilege of privileges) if (!privilegesOf.readonly.has(privilege)) return 'readwrite'
  return 'readonly'
}

/** One account of a user, as `mysql.global_priv` holds it. */
interface Account {
  readonly host: string
  readonly access: number
  readonly isRole: boolean
  readonly plugin: string
  readonly authenticationString: string
  readonly locked: boolean
}

/** The privileges a `mysql.db` row holds. */
function privilegesOfRow(row: RowDataPacket): Set<string> {
  const held = new Set<string>()
  for (const [column, privilege] of dbColumns) if (row[column] === 'Y') held.add(privilege)
  return held
}

function list(privileges: Iterable<string>): string {
  return [...privileges].join(', ')
}

/** The version of MariaDB this adapter needs: `mysql.global_priv` and `ACCOUNT LOCK` (10.4), database comments (10.5). */
function supportedVersion(version: string): boolean {
  const match = /^(\d+)\.(\d+)\./.exec(version)
  if (!match || !/mariadb/i.test(version)) return false
  const [major, minor] = [Number(match[1]), Number(match[2])]
  return major > 10 || (major === 10 && minor >= 5)
}

/** The global privileges `SHOW GRANTS` lists on `*.*`, `GRANT OPTION` included. */
function globalPrivileges(grantLines: readonly string[]): Set<string> {
  const held = new Set<string>()
  for (const line of grantLines) {
    const match = /^GRANT (.+?) ON \*\.\* TO (.*)$/.exec(line)
    if (!match) continue
    const [, privileges = '', rest = ''] = match
    if (/\bWITH\b.*\bGRANT OPTION\b/.test(rest)) held.add('GRANT OPTION')
    for (const privilege of privileges.split(', ')) {
      if (privilege === 'ALL PRIVILEGES') for (const any of adminPrivileges) held.add(any)
      else held.add(privilege)
    }
  }
  if (held.has('SUPER')) held.add('CONNECTION ADMIN')
  return held
}

/**
 * The error a caller sees. A statement carrying a password says only which statement failed and the server's error
 * number: mysql2 puts the formatted statement on its errors, and a syntax error quotes it in the message.
 */
function engineError(error: unknown, secret?: string): EngineError {
  if (error instanceof EngineError) return error
  const { code, errno, sqlMessage, message } = error as {
    code?: string
    errno?: number
    sqlMessage?: string
    message?: string
  }
  if (code && unreachableCodes.has(code))
    return new EngineError(`The MariaDB server could not be reached (${code})`, 'server_unreachable')
  const detail = secret
    ? `${secret} failed (MariaDB error ${errno ?? code})`
    : (sqlMessage ?? message ?? String(error))
  if (errno !== undefined && loginErrnos.has(errno)) return new EngineError(detail, 'server_login_failed')
  if (errno !== undefined && privilegeErrnos.has(errno))
    return new EngineError(detail, 'server_privileges_missing')
  return new EngineError(detail, 'server_error')
}

function connectionOptions(server: ServerAccess): PoolOptions {
  return {
    host: server.host,
    port: server.port,
    user: server.username,
    password: server.password,
    connectTimeout: 5_000,
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: true,
    enableKeepAlive: true,
    multipleStatements: false,
  }
}

/** The MariaDB engine: databases, accounts and grants as docs/databases.md describes them. */
export function mariadbEngine(): DatabaseEngine {
  const pools = new KeptConnections<Pool>(
    (server) =>
      mysql.createPool({ ...connectionOptions(server), connectionLimit: 2, maxIdle: 1, idleTimeout: 30_000 }),
    (pool) => pool.end(),
  )
  const poolOf = (server: ServerAccess): Pool => pools.of(server)

  /** Runs one statement; `secret` names a statement that carries a password, kept out of any error. */
  async function run(server: ServerAccess, statement: string, values: unknown[] = [], secret?: string) {
    try {
      const [result] = await poolOf(server).query(statement, values)
      return result
    } catch (error) {
      throw engineError(error, secret)
    }
  }

  async function rows(
    server: ServerAccess,
    statement: string,
    values: unknown[] = [],
  ): Promise<RowDataPacket[]> {
    const result = await run(server, statement, values)
    return Array.isArray(result) ? (result as RowDataPacket[]) : []
  }

  async function accountsOf(server: ServerAccess, username: string): Promise<Account[]> {
    const found = await rows(server, 'SELECT Host, Priv FROM mysql.global_priv WHERE User = ?', [username])
    return found.map((row) => {
      // mysql2 parses the column when the server types it JSON, and hands text over otherwise.
      const priv = (typeof row.Priv === 'string' ? JSON.parse(row.Priv) : row.Priv) as {
        access?: number
        is_role?: boolean
        plugin?: string
        authentication_string?: string
        account_locked?: boolean | number
      }
      return {
        host: String(row.Host),
        access: Number(priv.access ?? 0),
        isRole: priv.is_role === true,
        plugin: priv.plugin ?? 'mysql_native_password',
        authenticationString: priv.authentication_string ?? '',
        locked: priv.account_locked === true || Number(priv.account_locked) === 1,
      }
    })
  }

  /**
   * Refuses to touch an account the panel would never have made: the administrator's own, a role, or one holding
   * global privileges, a proxy grant or a role. A tenant naming a user `root` must not get root's password changed.
   */
  async function guard(server: ServerAccess, username: string, accounts: readonly Account[]): Promise<void> {
    const privileged =
      username === server.username ||
      accounts.some((account) => account.isRole || account.access !== 0) ||
      (await rows(server, 'SELECT 1 FROM mysql.proxies_priv WHERE User = ? LIMIT 1', [username])).length >
        0 ||
      (await rows(server, 'SELECT 1 FROM mysql.roles_mapping WHERE User = ? LIMIT 1', [username])).length > 0
    if (privileged)
      throw new EngineError(
        `The MariaDB account ${username} holds privileges the panel never gives: it is not a panel user`,
        'server_error',
      )
  }

  async function existingAccounts(server: ServerAccess, username: string): Promise<Account[]> {
    const accounts = await accountsOf(server, username)
    if (accounts.length === 0)
      throw new EngineError(`The MariaDB user ${username} does not exist on the server`, 'server_error')
    await guard(server, username, accounts)
    return accounts
  }

  /** Ends the sessions of `username` (on any host: the process list does not say which account a session is). */
  async function killSessionsOf(server: ServerAccess, username: string): Promise<void> {
    const sessions = await rows(
      server,
      'SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND ID <> CONNECTION_ID()',
      [username],
    )
    for (const { ID } of sessions) await killSession(server, Number(ID))
  }

  async function killSession(server: ServerAccess, id: number): Promise<void> {
    try {
      await poolOf(server).query('KILL CONNECTION ?', [id])
    } catch (error) {
      if ((error as { errno?: number }).errno !== unknownThread) throw engineError(error)
    }
  }

  /** The database grants of one account, by `mysql.db` pattern. */
  async function dbGrantsOf(server: ServerAccess, username: string, host: string) {
    const found = await rows(server, `SELECT Db, ${dbColumnList} FROM mysql.db WHERE User = ? AND Host = ?`, [
      username,
      host,
    ])
    return new Map(found.map((row) => [String(row.Db), privilegesOfRow(row)]))
  }

  async function grant(
    server: ServerAccess,
    privileges: Iterable<string>,
    pattern: string,
    user: string,
    host: string,
  ) {
    await run(server, `GRANT ${list(privileges)} ON ??.* TO ?@?`, [pattern, user, host])
  }

  async function revoke(
    server: ServerAccess,
    privileges: Iterable<string>,
    pattern: string,
    user: string,
    host: string,
  ) {
    await runRevoke(server, `REVOKE ${list(privileges)} ON ??.* FROM ?@?`, [pattern, user, host])
  }

  /** Runs a REVOKE; a grant already gone is what it wanted. */
  async function runRevoke(server: ServerAccess, statement: string, values: unknown[]) {
    try {
      await poolOf(server).query(statement, values)
    } catch (error) {
      if (!grantGone.has((error as { errno?: number }).errno ?? 0)) throw engineError(error)
    }
  }

  /**
   * Revokes the table and routine grants an account holds outside `keep`: MariaDB gives a routine's creator
   * `EXECUTE` and `ALTER ROUTINE` on it by itself, and those outlive the database grant.
   */
  async function revokeObjectGrants(
    server: ServerAccess,
    user: string,
    host: string,
    keep: ReadonlySet<string>,
  ) {
    const tables = await rows(
      server,
      'SELECT Db, Table_name FROM mysql.tables_priv WHERE User = ? AND Host = ?',
      [user, host],
    )
    for (const { Db, Table_name } of tables)
      if (!keep.has(String(Db)))
        await runRevoke(server, 'REVOKE ALL PRIVILEGES ON ??.?? FROM ?@?', [Db, Table_name, user, host])
    const routines = await rows(
      server,
      'SELECT Db, Routine_name, Routine_type FROM mysql.procs_priv WHERE User = ? AND Host = ?',
      [user, host],
    )
    for (const { Db, Routine_name, Routine_type } of routines) {
      if (keep.has(String(Db))) continue
      const kind =
        Routine_type === 'FUNCTION' ? 'FUNCTION' : Routine_type === 'PACKAGE' ? 'PACKAGE' : 'PROCEDURE'
      await runRevoke(server, `REVOKE ALL PRIVILEGES ON ${kind} ??.?? FROM ?@?`, [
        Db,
        Routine_name,
        user,
        host,
      ])
    }
  }

  async function setAccountPassword(server: ServerAccess, username: string, host: string, password: string) {
    await run(
      server,
      `ALTER USER ?@? ${identifiedBy(password)}`,
      [username, host, password],
      `Setting the password of ${username}`,
    )
  }

  async function isOurs(server: ServerAccess, name: string): Promise<boolean | null> {
    const found = await rows(
      server,
      'SELECT SCHEMA_COMMENT FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [name],
    )
    if (found.length === 0) return null
    return found[0]?.SCHEMA_COMMENT === databaseComment
  }

  return {
    name: 'mariadb',

    async check(server) {
      const connection = await mysql.createConnection(connectionOptions(server)).catch((error: unknown) => {
        throw engineError(error)
      })
      try {
        const [versionRows] = await connection.query<RowDataPacket[]>('SELECT VERSION() AS version')
        const version = String(versionRows[0]?.version ?? '')
        if (!supportedVersion(version))
          throw new EngineError(
            `The server runs ${version}; the panel needs MariaDB 10.5 or later`,
            'server_error',
          )
        const [grantRows] = await connection.query<RowDataPacket[]>('SHOW GRANTS')
        const held = globalPrivileges(grantRows.map((row) => String(Object.values(row)[0])))
        const missing = adminPrivileges.filter((privilege) => !held.has(privilege))
        if (missing.length > 0)
          throw new EngineError(
            `${server.username} lacks ${missing.join(', ')} on *.* (it needs them to create databases, users and grants)`,
            'server_privileges_missing',
          )
        return { version }
      } catch (error) {
        throw engineError(error)
      } finally {
        connection.destroy()
      }
    },

    async createDatabase(server, name) {
      checkDatabase(name)
      await run(server, 'CREATE DATABASE IF NOT EXISTS ?? CHARACTER SET utf8mb4 COMMENT ?', [
        name,
        databaseComment,
      ])
      if ((await isOurs(server, name)) === false)
        throw new EngineError(`The database ${name} exists and was not created by the panel`, 'server_error')
    },

    async dropDatabase(server, name) {
      checkDatabase(name)
      // The panel's record of the database is what says it is the tenant's: its own users may have dropped and
      // made it again (readwrite holds DROP and CREATE on it), losing the mark it was created with, and it must
      // still go. The name carries the customer's prefix, which nothing outside the panel uses.
      const exists = (await isOurs(server, name)) !== null
      if (exists) {
        const sessions = await rows(
          server,
          'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()',
          [name],
        )
        for (const { ID } of sessions) await killSession(server, Number(ID))
        await run(
          server,
          `SET STATEMENT lock_wait_timeout = ${dropLockWaitSeconds} FOR DROP DATABASE IF EXISTS ??`,
          [name],
        )
      }
      // MariaDB keeps the grants on a dropped database: left there, they would open a database made later under the
      // same name to the users of this one.
      const pattern = grantPattern(name)
      const granted = await rows(server, `SELECT User, Host, ${dbColumnList} FROM mysql.db WHERE Db = ?`, [
        pattern,
      ])
      for (const row of granted)
        await revoke(server, privilegesOfRow(row), pattern, String(row.User), String(row.Host))
      const tables = await rows(server, 'SELECT User, Host, Table_name FROM mysql.tables_priv WHERE Db = ?', [
        name,
      ])
      for (const { User, Host, Table_name } of tables)
        await runRevoke(server, 'REVOKE ALL PRIVILEGES ON ??.?? FROM ?@?', [name, Table_name, User, Host])
    },

    async databaseSizes(server, names) {
      for (const name of names) checkName(name, 'database')
      if (names.length === 0) return new Map()
      const found = await rows(
        server,
        `SELECT s.SCHEMA_NAME AS name, COALESCE(SUM(t.DATA_LENGTH + t.INDEX_LENGTH), 0) AS size
           FROM information_schema.SCHEMATA s
           LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME
          WHERE s.SCHEMA_NAME IN (?)
          GROUP BY s.SCHEMA_NAME`,
        [names],
      )
      return new Map(found.map((row) => [String(row.name), Number(row.size)]))
    },

    async createUser(server, username, password, hosts) {
      checkName(username, 'user')
      checkPassword(password)
      const wanted = checkHosts(hosts)
      const accounts = await accountsOf(server, username)
      if (accounts.length > 0) await guard(server, username, accounts)
      // A host added to a locked user must not open a way in that the others close.
      const lock = accounts.some((account) => account.locked) ? ' ACCOUNT LOCK' : ''
      const have = new Set(accounts.map((account) => account.host))
      for (const host of wanted)
        if (!have.has(host))
          await run(
            server,
            `CREATE USER IF NOT EXISTS ?@? ${identifiedBy(password)}${lock}`,
            [username, host, password],
            `Creating the user ${username}`,
          )
      for (const host of new Set([...have, ...wanted]))
        await setAccountPassword(server, username, host, password)
    },

    async setPassword(server, username, password) {
      checkName(username, 'user')
      checkPassword(password)
      for (const account of await existingAccounts(server, username))
        await setAccountPassword(server, username, account.host, password)
    },

    async setHosts(server, username, hosts) {
      checkName(username, 'user')
      const wanted = checkHosts(hosts)
      const accounts = await existingAccounts(server, username)
      const template = accounts.find((account) => wanted.includes(account.host)) ?? (accounts[0] as Account)
      if (!/^[a-z0-9_]+$/.test(template.plugin))
        throw new EngineError(`Unexpected authentication plugin ${template.plugin}`, 'server_error')
      const have = new Set(accounts.map((account) => account.host))
      const grants = await dbGrantsOf(server, username, template.host)
      // The password is not known here: the new account gets the same stored hash (`USING`), so the same password.
      for (const host of wanted.filter((host) => !have.has(host))) {
        await run(
          server,
          `CREATE USER IF NOT EXISTS ?@? IDENTIFIED VIA ${template.plugin} USING ?${template.locked ? ' ACCOUNT LOCK' : ''}`,
          [username, host, template.authenticationString],
          `Creating the user ${username}`,
        )
        for (const [pattern, privileges] of grants) await grant(server, privileges, pattern, username, host)
      }
      const dropped = accounts.filter((account) => !wanted.includes(account.host))
      for (const account of dropped) await run(server, 'DROP USER IF EXISTS ?@?', [username, account.host])
      if (dropped.length > 0) await killSessionsOf(server, username)
    },

    async dropUser(server, username) {
      checkName(username, 'user')
      const accounts = await accountsOf(server, username)
      if (accounts.length === 0) return
      await guard(server, username, accounts)
      for (const account of accounts) await run(server, 'DROP USER IF EXISTS ?@?', [username, account.host])
      // Dropping an account leaves its sessions running: they end after it, so that none can log in again meanwhile.
      await killSessionsOf(server, username)
    },

    async setGrants(server, username, grants) {
      checkName(username, 'user')
      const wanted = checkGrants(grants, checkDatabase)
      const accounts = await existingAccounts(server, username)
      const wantedPatterns = new Map(
        [...wanted].map(([name, access]) => [grantPattern(name), privilegesOf[access]]),
      )
      let narrowed = false
      for (const { host } of accounts) {
        const held = await dbGrantsOf(server, username, host)
        for (const [pattern, privileges] of held) {
          const want = wantedPatterns.get(pattern) ?? new Set<string>()
          const extra = [...privileges].filter((privilege) => !want.has(privilege))
          if (extra.length === 0) continue
          await revoke(server, extra, pattern, username, host)
          narrowed = true
        }
        for (const [pattern, want] of wantedPatterns) {
          const have = held.get(pattern) ?? new Set<string>()
          const missing = [...want].filter((privilege) => !have.has(privilege))
          if (missing.length > 0) await grant(server, missing, pattern, username, host)
        }
        await revokeObjectGrants(server, username, host, new Set(wanted.keys()))
      }
      // A session keeps the database privileges it had when it entered the database, whatever is revoked after: the
      // user's sessions end so that what was taken away is gone at once.
      if (narrowed) await killSessionsOf(server, username)
    },

    async readGrants(server, username) {
      checkName(username, 'user')
      const found = await rows(server, `SELECT Db, ${dbColumnList} FROM mysql.db WHERE User = ?`, [username])
      // Keyed by pattern, not by database: a wildcard pattern spelled like a database name (`shop_a1` unescaped, which
      // also opens `shopXa1`) then reads as a second grant of that database, which the drift check cannot miss.
      const access = new Map<string, Grant>()
      for (const row of found) {
        const privileges = privilegesOfRow(row)
        if (privileges.size === 0) continue
        const pattern = String(row.Db)
        const database = databaseOfPattern(pattern) ?? pattern
        // Accounts on several hosts that disagree read as the widest of them.
        if (access.get(pattern)?.access !== 'readwrite')
          access.set(pattern, { database, access: accessOf(privileges) })
      }
      return [...access.values()].sort((a, b) =>
        a.database < b.database ? -1 : a.database > b.database ? 1 : 0,
      )
    },

    async setLocked(server, username, locked) {
      checkName(username, 'user')
      const accounts = await accountsOf(server, username)
      if (accounts.length === 0) return
      await guard(server, username, accounts)
      for (const account of accounts)
        await run(server, `ALTER USER ?@? ACCOUNT ${locked ? 'LOCK' : 'UNLOCK'}`, [username, account.host])
      if (locked) await killSessionsOf(server, username)
    },

    async handOverDefinitions(server, database, username, heir) {
      checkDatabase(database)
      checkName(username, 'user')
      checkName(heir.username, 'user')
      const [host] = checkHosts([heir.host])
      const definer = mysql.format('DEFINER=?@?', [heir.username, host])
      const ofUser = "SUBSTRING_INDEX(DEFINER, '@', 1) = ?"
      const views = await rows(
        server,
        `SELECT TABLE_NAME AS name FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND ${ofUser}`,
        [database, username],
      )
      const triggers = await rows(
        server,
        `SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND ${ofUser}`,
        [database, username],
      )
      const routines = await rows(
        server,
        `SELECT ROUTINE_NAME AS name, ROUTINE_TYPE AS type FROM information_schema.ROUTINES
          WHERE ROUTINE_SCHEMA = ? AND ${ofUser} AND ROUTINE_TYPE IN ('PROCEDURE', 'FUNCTION')`,
        [database, username],
      )
      const events = await rows(
        server,
        `SELECT EVENT_NAME AS name, ON_COMPLETION AS completion FROM information_schema.EVENTS
          WHERE EVENT_SCHEMA = ? AND ${ofUser}`,
        [database, username],
      )
      const total = views.length + triggers.length + routines.length + events.length
      if (total === 0) return 0
      // Their definitions name tables without their database: made again from inside it, on a connection of its
      // own (the session's sql_mode is each definition's own).
      const connection = await mysql
        .createConnection({ ...connectionOptions(server), database })
        .catch((error: unknown) => {
          throw engineError(error)
        })
      /** `statement` (a SHOW CREATE's) made again as `CREATE OR REPLACE`, with the heir as its definer. */
      const remade = (statement: string) =>
        statement
          .replace(/^CREATE /, 'CREATE OR REPLACE ')
          .replace(/DEFINER=`(?:[^`]|``)*`@`(?:[^`]|``)*`/, definer)
      try {
        for (const { name } of views) {
          const [[shown]] = await connection.query<RowDataPacket[]>('SHOW CREATE VIEW ??', [name])
          await connection.query(remade(String(shown?.['Create View'])))
        }
        for (const { name } of triggers) {
          const [[shown]] = await connection.query<RowDataPacket[]>('SHOW CREATE TRIGGER ??', [name])
          await connection.query('SET SESSION sql_mode = ?', [String(shown?.sql_mode ?? '')])
          await connection.query(remade(String(shown?.['SQL Original Statement'])))
        }
        for (const { name, type } of routines) {
          const kind = type === 'FUNCTION' ? 'FUNCTION' : 'PROCEDURE'
          const [[shown]] = await connection.query<RowDataPacket[]>(`SHOW CREATE ${kind} ??`, [name])
          await connection.query('SET SESSION sql_mode = ?', [String(shown?.sql_mode ?? '')])
          await connection.query(
            remade(String(shown?.[kind === 'FUNCTION' ? 'Create Function' : 'Create Procedure'])),
          )
        }
        // ALTER EVENT wants a change besides the definer: the event's own ON COMPLETION, said again.
        for (const { name, completion } of events)
          await connection.query(
            `ALTER ${definer} EVENT ?? ON COMPLETION ${completion === 'PRESERVE' ? 'PRESERVE' : 'NOT PRESERVE'}`,
            [name],
          )
      } catch (error) {
        throw engineError(error)
      } finally {
        connection.destroy()
      }
      return total
    },

    async namesStartingWith(server, prefix) {
      checkName(prefix, 'prefix')
      const databases = await rows(
        server,
        'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
        [likePrefix(prefix)],
      )
      const users = await rows(
        server,
        'SELECT DISTINCT User AS name FROM mysql.global_priv WHERE User LIKE ?',
        [likePrefix(prefix)],
      )
      const names = (found: RowDataPacket[]) =>
        found.map((row) => String(row.name)).filter((name) => name.startsWith(prefix))
      return { databases: names(databases), users: names(users) }
    },

    close: (server) => pools.close(server),
  }
}
