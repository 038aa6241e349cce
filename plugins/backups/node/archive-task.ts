// The `archive` task: a snapshot written out as one `.tar.gz` (restic's own tar of it, gzipped) into the service's
// folder, for the panel to read in pieces and hand to the customer.

import { chmod, mkdir, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import type { ArchiveStore } from './archives.ts'
import { systemEnv } from './processes.ts'
import type { BackupTask, RunOutcome } from './protocol.ts'
import { Restic, snapshotOf } from './restic.ts'
import { resticAccess } from './restic-env.ts'
import type { RunContext } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

type Archive = Extract<BackupTask, { task: 'archive' }>

/** Writes the archive; answers its id and size. */
export async function runArchive(
  task: Archive,
  site: NodeSite,
  context: RunContext,
  archives: ArchiveStore,
): Promise<RunOutcome> {
  const access = await resticAccess(task.repository, context.dataDir)
  const { id, path } = archives.allot(site.id)
  try {
    const restic = new Restic(access, context.groups, [context.dataDir, site.home])
    context.report(5, 'opening the repository')
    await restic.open(false)
    const snapshot = await snapshotOf(restic, task.snapshotId)
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    context.report(10, 'writing the archive')
    const dump = context.groups.spawn(restic.argv(['dump', '--archive', 'tar', snapshot.id, '/']), {
      env: restic.env,
      stdout: 'pipe',
    })
    const gzip = context.groups.spawn(['gzip', '-c', '-6'], {
      env: systemEnv,
      stdin: dump.child.stdout as ReadableStream<Uint8Array>,
      stdout: Bun.file(path),
    })
    const [dumped, zipped] = await Promise.all([dump.finished, gzip.finished])
    if (dumped.code !== 0) throw restic.failure(dumped, 'writing the archive')
    if (zipped.code !== 0) {
      const full = /No space left/i.test(zipped.stderr)
      throw new RunFailure(
        full ? 'disk_quota_exceeded' : 'failed',
        full ? 'The node’s disk is full.' : 'gzip failed.',
      )
    }
    await chmod(path, 0o600)
    return { ok: true, task: 'archive', archiveId: id, bytes: (await stat(path)).size }
  } catch (error) {
    await rm(path, { force: true })
    throw error
  } finally {
    await access.release()
  }
}
