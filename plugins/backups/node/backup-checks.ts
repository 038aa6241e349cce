// The checks after a backup, before it counts as done: restic's own check of the repository (reading back a share of
// its data), each dump restored from the snapshot into a scratch database with its tables counted against the
// source's, and a sample of the site's files restored from the snapshot and compared by SHA-256 with what they were.

import { join, posix } from 'node:path'
import { checkedLogin, countTables } from './database-clients.ts'
import { loadDump } from './dumps.ts'
import { type SampledFile, type SiteFiles, sha256Of, unchanged } from './file-sample.ts'
import type { BackupTask } from './protocol.ts'
import { literalPattern, type Restic } from './restic.ts'
import { type RunContext, runFolder } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

type Backup = Extract<BackupTask, { task: 'backup' }>

/** What the checks found. */
export interface CheckResult {
  readonly restoredTables: ReadonlyMap<string, number>
  readonly sampled: number
  readonly matched: number
}

/** Runs every check; a failed one throws its code (`repository_corrupt`, `verify_failed`). */
export async function checkBackup(
  restic: Restic,
  task: Backup,
  snapshotId: string,
  folder: string,
  files: SiteFiles | null,
  sample: SampledFile[],
  context: RunContext,
): Promise<CheckResult> {
  const percent = Math.min(100, Math.max(1, Math.round(task.verify.readDataPercent)))
  context.report(72, 'checking the repository')
  try {
    await restic.run(['check', `--read-data-subset=${percent}%`], 'checking the repository')
  } catch (error) {
    if (!(error instanceof RunFailure) || ['cancelled', 'repository_unreachable'].includes(error.code))
      throw error
    throw new RunFailure('repository_corrupt', error.message)
  }
  const restoredTables = new Map<string, number>()
  for (const [index, source] of task.databases.entries()) {
    context.report(
      80 + Math.round((8 * index) / task.databases.length),
      `test-restoring ${source.databaseId}`,
    )
    const scratch = checkedLogin(source.scratch)
    const dump = restic.groups.spawn(
      restic.argv(['dump', snapshotId, posix.join(folder, 'databases', `${source.databaseId}.sql`)]),
      { env: restic.env, stdout: 'pipe' },
    )
    const doing = `The test restore of ${source.databaseId}`
    await loadDump(
      scratch,
      dump.child.stdout as ReadableStream<Uint8Array>,
      restic.groups,
      context.dataDir,
      doing,
      'verify_failed',
    )
    const read = await dump.finished
    if (read.code !== 0) {
      const failure = restic.failure(read, `reading the dump of ${source.databaseId}`)
      throw failure.code === 'failed' ? new RunFailure('verify_failed', failure.message) : failure
    }
    const tables = await countTables(scratch, restic.groups, context.dataDir, doing, 'verify_failed')
    restoredTables.set(source.databaseId, tables)
  }
  context.report(90, 'test-restoring files')
  const compared = files
    ? await compareSample(restic, task, snapshotId, files, sample, context)
    : { sampled: 0, matched: 0 }
  return { restoredTables, ...compared }
}

/**
 * The sampled files restored from the snapshot and compared. Those that changed while the backup ran are skipped;
 * when all did, other files left alone are hashed now in their place, so a site with files has one compared at least.
 */
async function compareSample(
  restic: Restic,
  task: Backup,
  snapshotId: string,
  files: SiteFiles,
  sample: SampledFile[],
  context: RunContext,
): Promise<{ sampled: number; matched: number }> {
  const wanted = Math.max(1, task.verify.sampleFiles)
  const chosen: SampledFile[] = []
  for (const file of sample) if (await unchanged(file)) chosen.push(file)
  if (chosen.length === 0)
    for (const file of files.files.slice(sample.length)) {
      if (chosen.length >= wanted) break
      if (!(await unchanged(file))) continue
      file.sha256 = await sha256Of(file.path).catch(() => null)
      if (file.sha256 !== null && (await unchanged(file))) chosen.push(file)
    }
  if (chosen.length === 0) {
    if (files.files.length === 0) return { sampled: 0, matched: 0 }
    throw new RunFailure(
      'verify_failed',
      'Every file of the site changed while the backup ran: none could be compared.',
    )
  }
  const scratch = await runFolder(context, 'scratch')
  try {
    await verifying(
      restic.run(
        [
          'restore',
          snapshotId,
          '--target',
          scratch.path,
          '--verify',
          ...chosen.flatMap((file) => ['--include', literalPattern(file.path)]),
        ],
        'restoring the sampled files',
      ),
    )
    let matched = 0
    const differing: string[] = []
    for (const file of chosen) {
      const restored = await sha256Of(join(scratch.path, file.path)).catch(() => null)
      if (restored === file.sha256) matched++
      else differing.push(file.sitePath)
    }
    if (differing.length > 0)
      throw new RunFailure(
        'verify_failed',
        `Restored from the snapshot, ${differing.slice(0, 5).join(', ')} differed from the site’s.`,
      )
    return { sampled: chosen.length, matched }
  } finally {
    await scratch.release()
  }
}

/** A step of the checks whose plain failure means the backup did not check out. */
async function verifying<T>(step: Promise<T>): Promise<T> {
  try {
    return await step
  } catch (error) {
    if (error instanceof RunFailure && error.code === 'failed')
      throw new RunFailure('verify_failed', error.message)
    throw error
  }
}
