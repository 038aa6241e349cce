// The `forget` task: snapshots removed from the site's repository and their data pruned; a snapshot already gone is
// not an error (the panel may ask again after a run it lost).

import type { BackupTask, RunOutcome } from './protocol.ts'
import { Restic, type Snapshot } from './restic.ts'
import { resticAccess } from './restic-env.ts'
import type { RunContext } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

type Forget = Extract<BackupTask, { task: 'forget' }>

/** Forgets the snapshots and prunes; answers the repository's size after. */
export async function runForget(task: Forget, context: RunContext): Promise<RunOutcome> {
  if (!Array.isArray(task.snapshotIds) || task.snapshotIds.some((id) => !/^[0-9a-f]{8,64}$/.test(String(id))))
    throw new RunFailure('failed', 'A snapshot id is not acceptable.')
  const access = await resticAccess(task.repository, context.dataDir)
  try {
    const restic = new Restic(access, context.groups, [context.dataDir])
    context.report(5, 'opening the repository')
    await restic.open(false)
    const listed = JSON.parse(
      await restic.run(['snapshots', '--json'], 'listing the snapshots', 64 * 1024 * 1024),
    ) as Snapshot[]
    const present = listed
      .filter((snapshot) => task.snapshotIds.some((id) => snapshot.id.startsWith(id)))
      .map((snapshot) => snapshot.id)
    if (present.length > 0) {
      context.report(20, 'forgetting and pruning')
      await restic.run(['forget', '--prune', ...present], 'forgetting the snapshots')
    }
    context.report(95, 'reading the repository’s size')
    return { ok: true, task: 'forget', repositoryBytes: await restic.repositoryBytes() }
  } finally {
    await access.release()
  }
}
