// A database's dump and its load, with the engine's own clients (`mariadb-dump --single-transaction`, `pg_dump`;
// `mariadb`, `psql`) and the run's login, its password through the environment only. A dump counts only when the
// client exited 0 and wrote a whole dump (the engine's completion line at its end): a 0-byte or cut dump is
// `dump_failed`, never a backup.

import { open, stat } from 'node:fs/promises'
import type { ProcessGroups } from './processes.ts'
import type { DatabaseLogin } from './protocol.ts'
import { RunFailure, scrubbed } from './run-failure.ts'

/** The last line a whole dump ends with, per engine. */
const completion = {
  mariadb: /-- Dump completed(?: on [^\n]*)?\s*$/,
  postgresql: /-- PostgreSQL database dump complete\s*$/,
} as const

const loginName = /^[A-Za-z0-9_][A-Za-z0-9_$.-]{0,79}$/
const hostName = /^(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|[0-9A-Fa-f:.]{2,45})$/

/** The login checked: names the clients take as arguments, never as options. */
export function checkedLogin(login: DatabaseLogin): DatabaseLogin {
  const fine =
    (login?.engine === 'mariadb' || login?.engine === 'postgresql') &&
    hostName.test(login.host) &&
    Number.isInteger(login.port) &&
    login.port > 0 &&
    login.port < 65_536 &&
    loginName.test(login.database) &&
    loginName.test(login.username) &&
    typeof login.password === 'string' &&
    login.password.length <= 1024 &&
    !login.password.includes('\0')
  if (!fine) throw new RunFailure('failed', 'A database login is not acceptable.')
  return login
}

/** The clients' environment: the password, nothing of the node's, no option file or history of anyone's. */
function clientEnv(login: DatabaseLogin, home: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    LANG: 'C.UTF-8',
    HOME: home,
  }
  if (login.engine === 'mariadb') env.MYSQL_PWD = login.password
  else {
    env.PGPASSWORD = login.password
    env.PGCONNECT_TIMEOUT = '20'
    env.PSQL_HISTORY = '/dev/null'
  }
  return env
}

const mariadbConnection = (login: DatabaseLogin) => [
  '--no-defaults',
  '--protocol=TCP',
  `--host=${login.host}`,
  `--port=${login.port}`,
  `--user=${login.username}`,
]
const postgresConnection = (login: DatabaseLogin) => [
  `--host=${login.host}`,
  `--port=${login.port}`,
  `--username=${login.username}`,
  '--no-password',
]

/** Runs one query with the engine's client and answers its unaligned output. */
async function query(
  login: DatabaseLogin,
  sql: string,
  groups: ProcessGroups,
  home: string,
  doing: string,
  code: RunFailure['code'] = 'dump_failed',
): Promise<string> {
  const argv =
    login.engine === 'mariadb'
      ? [
          'mariadb',
          ...mariadbConnection(login),
          '--batch',
          '--skip-column-names',
          `--database=${login.database}`,
          '--execute',
          sql,
        ]
      : [
          'psql',
          ...postgresConnection(login),
          '-X',
          '-A',
          '-t',
          '-v',
          'ON_ERROR_STOP=1',
          `--dbname=${login.database}`,
          '-c',
          sql,
        ]
  const result = await groups.output(argv, clientEnv(login, home))
  if (result.code !== 0) throw clientFailure(login, result.stderr, doing, code)
  return result.stdout
}

function clientFailure(
  login: DatabaseLogin,
  stderr: string,
  doing: string,
  code: RunFailure['code'] = 'dump_failed',
): RunFailure {
  const detail = scrubbed(stderr, [login.password], [])
  return new RunFailure(code, `${doing} failed: ${detail || 'the client said nothing'}`)
}

/** The schemas of a PostgreSQL database that are its own (not the system's). */
const userSchemas = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`

/** Tables and views of the login's database, as its server counts them. */
export async function countTables(
  login: DatabaseLogin,
  groups: ProcessGroups,
  home: string,
  doing: string,
  code: RunFailure['code'] = 'dump_failed',
): Promise<number> {
  const sql =
    login.engine === 'mariadb'
      ? 'SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()'
      : `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','v','m','p','f') AND ${userSchemas}`
  const count = Number((await query(login, sql, groups, home, doing, code)).trim())
  if (!Number.isInteger(count))
    throw new RunFailure('dump_failed', `${doing} failed: the server answered no count`)
  return count
}

/**
 * Dumps the login's database into `file` (a folder of root's): consistent (one transaction), with its routines and
 * triggers, without owners or grants (the restore loads it with another login). Answers its bytes.
 */
export async function dumpDatabase(
  login: DatabaseLogin,
  file: string,
  groups: ProcessGroups,
  home: string,
  databaseId: string,
): Promise<number> {
  const argv =
    login.engine === 'mariadb'
      ? [
          'mariadb-dump',
          ...mariadbConnection(login),
          '--single-transaction',
          '--quick',
          '--routines',
          '--triggers',
          '--no-tablespaces',
          '--hex-blob',
          '--default-character-set=utf8mb4',
          login.database,
        ]
      : [
          'pg_dump',
          ...postgresConnection(login),
          '--no-owner',
          '--no-privileges',
          '--format=plain',
          `--dbname=${login.database}`,
        ]
  const { finished } = groups.spawn(argv, { env: clientEnv(login, home), stdout: Bun.file(file) })
  const result = await finished
  if (groups.killed) throw new RunFailure('cancelled', 'The run was cancelled.')
  if (result.code !== 0) throw clientFailure(login, result.stderr, `Dumping ${databaseId}`)
  const bytes = (await stat(file)).size
  if (bytes === 0) throw new RunFailure('dump_failed', `Dumping ${databaseId} wrote nothing.`)
  if (!completion[login.engine].test(await lastBytes(file, bytes, 512)))
    throw new RunFailure('dump_failed', `The dump of ${databaseId} is cut short (it lacks its last line).`)
  return bytes
}

async function lastBytes(file: string, size: number, count: number): Promise<string> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(Math.min(size, count))
    await handle.read(buffer, 0, buffer.length, size - buffer.length)
    return buffer.toString('utf8')
  } finally {
    await handle.close()
  }
}

/** Drops every table, view, sequence, routine and type of the login's database: a load then makes it the dump's. */
export async function emptyDatabase(
  login: DatabaseLogin,
  groups: ProcessGroups,
  home: string,
  databaseId: string,
  code: RunFailure['code'],
): Promise<void> {
  const doing = `Emptying ${databaseId}`
  if (login.engine === 'mariadb') {
    const rows = (
      await query(
        login,
        'SELECT TABLE_TYPE, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
        groups,
        home,
        doing,
        code,
      )
    )
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t') as [string, string])
    if (rows.length === 0) return
    const name = (table: string) => `\`${table.replaceAll('`', '``')}\``
    const views = rows.filter(([type]) => type === 'VIEW').map(([, table]) => name(table))
    const tables = rows.filter(([type]) => type !== 'VIEW').map(([, table]) => name(table))
    const statements = ['SET FOREIGN_KEY_CHECKS=0']
    if (views.length) statements.push(`DROP VIEW IF EXISTS ${views.join(', ')}`)
    if (tables.length) statements.push(`DROP TABLE IF EXISTS ${tables.join(', ')}`)
    await query(login, statements.join('; '), groups, home, doing, code)
    return
  }
  const owned = `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = o.oid AND d.deptype = 'e')`
  await query(
    login,
    `DO $plinth$ DECLARE r record; BEGIN
  FOR r IN SELECT n.nspname s, o.relname o, o.relkind k FROM pg_class o JOIN pg_namespace n ON n.oid = o.relnamespace
    WHERE o.relkind IN ('v','m','r','p','f','S') AND ${userSchemas} AND ${owned}
    ORDER BY CASE o.relkind WHEN 'v' THEN 0 WHEN 'm' THEN 1 WHEN 'S' THEN 3 ELSE 2 END LOOP
    EXECUTE format(CASE r.k WHEN 'v' THEN 'DROP VIEW IF EXISTS %I.%I CASCADE' WHEN 'm' THEN 'DROP MATERIALIZED VIEW IF EXISTS %I.%I CASCADE'
      WHEN 'f' THEN 'DROP FOREIGN TABLE IF EXISTS %I.%I CASCADE' WHEN 'S' THEN 'DROP SEQUENCE IF EXISTS %I.%I CASCADE'
      ELSE 'DROP TABLE IF EXISTS %I.%I CASCADE' END, r.s, r.o);
  END LOOP;
  FOR r IN SELECT n.nspname s, o.proname o, pg_get_function_identity_arguments(o.oid) a FROM pg_proc o
    JOIN pg_namespace n ON n.oid = o.pronamespace WHERE ${userSchemas} AND ${owned} LOOP
    EXECUTE format('DROP ROUTINE IF EXISTS %I.%I(%s) CASCADE', r.s, r.o, r.a);
  END LOOP;
  FOR r IN SELECT n.nspname s, o.typname o FROM pg_type o JOIN pg_namespace n ON n.oid = o.typnamespace
    WHERE o.typtype IN ('e','d','r','m') AND ${userSchemas} AND ${owned} LOOP
    EXECUTE format('DROP TYPE IF EXISTS %I.%I CASCADE', r.s, r.o);
  END LOOP;
  FOR r IN SELECT n.nspname s FROM pg_namespace n WHERE ${userSchemas} AND n.nspname <> 'public'
    AND pg_has_role(n.nspowner, 'USAGE') LOOP
    EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', r.s);
  END LOOP;
END $plinth$`,
    groups,
    home,
    doing,
    code,
  )
}

/**
 * Loads a dump (a stream: restic's `dump` of it) into the login's database. MariaDB's dumps name their views' and
 * routines' definer (the source's login, or its administrator), which another login may not create objects for:
 * the clauses are left out (lines of data excepted), so the objects belong to the login that loads them.
 */
export async function loadDump(
  login: DatabaseLogin,
  dump: ReadableStream<Uint8Array>,
  groups: ProcessGroups,
  home: string,
  doing: string,
  code: RunFailure['code'],
): Promise<void> {
  const env = clientEnv(login, home)
  if (login.engine === 'mariadb') {
    const filter = groups.spawn(
      ['sed', '-E', '/^INSERT INTO /!s/DEFINER=(`[^`]*`|[^ @]*)@(`[^`]*`|[^ *]*)//g'],
      { env, stdin: dump, stdout: 'pipe' },
    )
    const load = groups.spawn(
      ['mariadb', ...mariadbConnection(login), '--batch', `--database=${login.database}`],
      { env, stdin: filter.child.stdout as ReadableStream<Uint8Array>, stdout: 'ignore' },
    )
    const [filtered, loaded] = await Promise.all([filter.finished, load.finished])
    if (groups.killed) throw new RunFailure('cancelled', 'The run was cancelled.')
    if (loaded.code !== 0) throw clientFailure(login, loaded.stderr, doing, code)
    if (filtered.code !== 0) throw clientFailure(login, filtered.stderr, doing, code)
    return
  }
  const load = groups.spawn(
    [
      'psql',
      ...postgresConnection(login),
      '-X',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      `--dbname=${login.database}`,
      '-f',
      '-',
    ],
    { env, stdin: dump, stdout: 'ignore' },
  )
  const loaded = await load.finished
  if (groups.killed) throw new RunFailure('cancelled', 'The run was cancelled.')
  if (loaded.code !== 0) throw clientFailure(login, loaded.stderr, doing, code)
}
