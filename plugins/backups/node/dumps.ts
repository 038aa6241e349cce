// A database's dump and its load, with the engine's own clients (`mariadb-dump --single-transaction`, `pg_dump`;
// `mariadb`, `psql`) and the run's login, its password through the environment only. A dump counts only when the
// client exited 0 and wrote a whole dump (the engine's completion line at its end): a 0-byte or cut dump is
// `dump_failed`, never a backup.

import { open, stat } from 'node:fs/promises'
import { clientEnv, clientFailure, mariadbConnection, postgresConnection } from './database-clients.ts'
import type { ProcessGroups } from './processes.ts'
import type { DatabaseLogin } from './protocol.ts'
import { RunFailure } from './run-failure.ts'

/** The last line a whole dump ends with, per engine. */
const completion = {
  mariadb: /-- Dump completed(?: on [^\n]*)?\s*$/,
  // Since 15.14, pg_dump closes with `\unrestrict <key>` (the key it opened with `\restrict`) after its line.
  postgresql: /-- PostgreSQL database dump complete\s*(?:--\s*)?(?:\\unrestrict \S+\s*)?$/,
} as const

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
