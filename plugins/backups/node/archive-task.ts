// The `archive` task: a snapshot written out as one `.tar.gz` into the service's folder, for the panel to read in
// pieces and hand to the customer. It is restored to a scratch folder of root's first and tarred from there, so the
// archive holds the site's home as `htdocs/…`, `logs/…` beside `record.json`, `backup.json` and `databases/…`,
// never the paths the node kept them at (restic's own tar of a snapshot names every file by its node's path).

import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises'
import { dirname, posix } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import type { ArchiveStore } from './archives.ts'
import { layoutOf } from './backup-manifest.ts'
import { systemEnv } from './processes.ts'
import type { BackupTask, RunOutcome } from './protocol.ts'
import { Restic, snapshotOf } from './restic.ts'
import { resticAccess } from './restic-env.ts'
import { type RunContext, runFolder } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

type Archive = Extract<BackupTask, { task: 'archive' }>

/** The top entries of a restored folder as tar members relative to it (`./name`: never read as an option). */
async function membersOf(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).map((name) => `./${name}`)
}

/** Writes the archive; answers its id and size. */
export async function runArchive(
  task: Archive,
  site: NodeSite,
  context: RunContext,
  archives: ArchiveStore,
): Promise<RunOutcome> {
  const access = await resticAccess(task.repository, context.dataDir)
  const { id, path } = archives.allot(site.id)
  // One archive of a site at a time (a newer download ends an older one still being read): on the node's own disk,
  // archives of links never read would otherwise add up to many copies of the site outside its quota.
  await archives.dropOthers(site.id, id)
  const scratch = await runFolder(context, 'scratch')
  try {
    const restic = new Restic(access, context.groups, [context.dataDir, site.home])
    context.report(5, 'opening the repository')
    await restic.open(false)
    const snapshot = await snapshotOf(restic, task.snapshotId)
    const layout = layoutOf(snapshot)
    context.report(10, 'restoring the snapshot')
    await restic.run(['restore', snapshot.id, '--target', scratch.path], 'restoring the snapshot')
    context.report(60, 'writing the archive')
    await mkdir(dirname(path), { recursive: true, mode: 0o700 })
    const home = layout.home ? posix.join(scratch.path, layout.home) : null
    const staging = posix.join(scratch.path, layout.staging)
    const argv = ['tar', '--create', '--gzip', '--file', path]
    if (home) argv.push('--directory', home, ...(await membersOf(home)))
    argv.push('--directory', staging, ...(await membersOf(staging)))
    const written = await context.groups.output(argv, systemEnv)
    if (context.groups.killed) throw new RunFailure('cancelled', 'The run was cancelled.')
    if (written.code !== 0) {
      const full = /No space left/i.test(written.stderr)
      throw new RunFailure(
        full ? 'disk_quota_exceeded' : 'failed',
        full ? 'The node’s disk is full.' : 'tar failed.',
      )
    }
    await chmod(path, 0o600)
    return { ok: true, task: 'archive', archiveId: id, bytes: (await stat(path)).size }
  } catch (error) {
    await rm(path, { force: true })
    throw error
  } finally {
    await scratch.release()
    await access.release()
  }
}
