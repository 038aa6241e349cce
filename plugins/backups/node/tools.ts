// The programs the backups service runs, found on the node: restic (its version told with the node's capabilities),
// the database clients, rsync and gzip; each missing one said with what it is needed for.

import type { NodeLack } from '../../nodes/node/contract.ts'
import { resticProgram } from './restic.ts'

const needed: readonly { program: string; what: string; for: string }[] = [
  { program: resticProgram, what: 'restic', for: 'backups' },
  { program: 'rsync', what: 'rsync', for: 'restoring backups' },
  { program: 'mariadb-dump', what: 'mariadb-client', for: 'backups of MariaDB databases' },
  { program: 'pg_dump', what: 'postgresql-client', for: 'backups of PostgreSQL databases' },
  { program: 'ssh', what: 'openssh-client', for: 'backups to SFTP targets' },
]

const searchPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

/** What the node lacks for backups now. */
export function missingTools(): readonly NodeLack[] {
  return needed
    .filter(({ program }) => Bun.which(program, { PATH: searchPath }) === null)
    .map(({ what, for: purpose }) => ({ what, for: purpose }))
}

let version: string | null = null

/** restic's version (`0.14.0`), or null when it is missing. */
export async function describeTools(): Promise<Record<string, unknown>> {
  if (version === null && Bun.which(resticProgram, { PATH: searchPath })) {
    const child = Bun.spawn([resticProgram, 'version'], {
      stdout: 'pipe',
      stderr: 'ignore',
      env: { PATH: searchPath },
    })
    const said = await new Response(child.stdout).text()
    await child.exited
    version = /restic (\d+\.\d+\.\d+)/.exec(said)?.[1] ?? null
  }
  return { restic: version }
}
