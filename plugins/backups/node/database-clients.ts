// The database servers' own clients (`mariadb`, `psql`, and their dump programs) as a run drives them: a login
// checked before its names reach a command line, its password through the environment only, no option file nor
// history of anyone's read or written, and a client's complaint shown without the password.

import type { ProcessGroups } from './processes.ts'
import type { DatabaseLogin } from './protocol.ts'
import { RunFailure, scrubbed } from './run-failure.ts'

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
export function clientEnv(login: DatabaseLogin, home: string): Record<string, string> {
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

export const mariadbConnection = (login: DatabaseLogin) => [
  '--no-defaults',
  '--protocol=TCP',
  `--host=${login.host}`,
  `--port=${login.port}`,
  `--user=${login.username}`,
]
export const postgresConnection = (login: DatabaseLogin) => [
  `--host=${login.host}`,
  `--port=${login.port}`,
  `--username=${login.username}`,
  '--no-password',
]

/** Runs one query with the engine's client and answers its unaligned output. */
export async function query(
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

export function clientFailure(
  login: DatabaseLogin,
  stderr: string,
  doing: string,
  code: RunFailure['code'] = 'dump_failed',
): RunFailure {
  const detail = scrubbed(stderr, [login.password], [])
  return new RunFailure(code, `${doing} failed: ${detail || 'the client said nothing'}`)
}

/** The schemas of a PostgreSQL database that are its own (not the system's). */
export const userSchemas = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`

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
