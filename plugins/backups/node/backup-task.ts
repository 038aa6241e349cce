// The `backup` task: the site's databases dumped (each checked whole), its record and a manifest written to a folder
// of root's, a sample of its files hashed, then one restic snapshot of its home (but `tmp/` and the runtime's files)
// and that folder, tagged with the panel's backup id; then checked (backup-checks.ts) before it is called done.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { NodeSite } from '../../nodes/node/contract.ts'
import { checkBackup } from './backup-checks.ts'
import { type BackupManifest, stagingName } from './backup-manifest.ts'
import { checkedLogin, countTables } from './database-clients.ts'
import { dumpDatabase } from './dumps.ts'
import { excludedAtTop, hashSample, restoreFolderPrefix, siteFiles } from './file-sample.ts'
import type { BackupTask, DumpedDatabase, RunOutcome } from './protocol.ts'
import { literalPattern, Restic, snapshotOf } from './restic.ts'
import { resticAccess } from './restic-env.ts'
import { type RunContext, runFolder } from './run-context.ts'
import { RunFailure } from './run-failure.ts'

type Backup = Extract<BackupTask, { task: 'backup' }>

/** Ids the node writes into names (a dump's file, the snapshot's tag). */
export const idPattern = /^[A-Za-z0-9_-]{1,64}$/

/** What restic's summary of a backup says. */
interface Summary {
  snapshotId: string
  totalFiles: number
  totalBytes: number
  dataAdded: number
}

/** The sites whose backup runs now: one at a time per site (they share their staging folder). */
const backingUp = new Set<string>()

/** Takes the backup; resolves with its outcome (a failed check is a failure with its code). */
export async function runBackup(task: Backup, site: NodeSite, context: RunContext): Promise<RunOutcome> {
  if (backingUp.has(site.id)) throw new RunFailure('failed', 'A backup of this site is running already.')
  backingUp.add(site.id)
  try {
    return await backUp(task, site, context)
  } finally {
    backingUp.delete(site.id)
  }
}

async function backUp(task: Backup, site: NodeSite, context: RunContext): Promise<RunOutcome> {
  if (!idPattern.test(task.backupId)) throw new RunFailure('failed', 'The backup id is not acceptable.')
  const { readDataPercent, sampleFiles } = task.verify ?? {}
  if (
    !Number.isFinite(readDataPercent) ||
    !Number.isInteger(sampleFiles) ||
    sampleFiles < 0 ||
    sampleFiles > 10_000
  )
    throw new RunFailure('failed', 'The backup’s checks are not acceptable.')
  for (const source of task.databases) {
    if (!idPattern.test(source.databaseId)) throw new RunFailure('failed', 'A database id is not acceptable.')
    checkedLogin(source.login)
    checkedLogin(source.scratch)
  }
  const access = await resticAccess(task.repository, context.dataDir)
  // The same paths every time (the staging folder named after the site): restic then takes the last snapshot as the
  // parent and reads only the files whose size or time changed, not every file of the site again.
  const staging = await runFolder(context, 'staging', site.id)
  try {
    const restic = new Restic(access, context.groups, [context.dataDir, site.home])
    context.report(1, 'opening the repository')
    const made = await restic.open(true)
    // restic 0.14 tells the data a snapshot added before compression: what it stored is the repository's growth.
    const bytesBefore = made ? 0 : await restic.repositoryBytes()

    const folder = join(staging.path, stagingName)
    await mkdir(join(folder, 'databases'), { recursive: true, mode: 0o700 })
    const dumped: BackupManifest['databases'][number][] = []
    for (const [index, source] of task.databases.entries()) {
      context.report(2 + Math.round((8 * index) / task.databases.length), `dumping ${source.databaseId}`)
      const tables = await countTables(
        source.login,
        context.groups,
        context.dataDir,
        `Counting ${source.databaseId}'s tables`,
      )
      const file = join(folder, 'databases', `${source.databaseId}.sql`)
      const bytes = await dumpDatabase(source.login, file, context.groups, context.dataDir, source.databaseId)
      dumped.push({ databaseId: source.databaseId, engine: source.login.engine, bytes, tables })
    }
    const manifest: BackupManifest = {
      format: 1,
      backupId: task.backupId,
      siteId: site.id,
      home: task.files ? site.home : null,
      databases: dumped,
      takenAt: new Date().toISOString(),
    }
    const record = `${JSON.stringify(task.record ?? {}, null, 2)}\n`
    const manifestText = `${JSON.stringify(manifest, null, 2)}\n`
    await writeFile(join(folder, 'record.json'), record, { mode: 0o600 })
    await writeFile(join(folder, 'backup.json'), manifestText, { mode: 0o600 })
    const stagedFiles = dumped.length + 2
    const stagedBytes =
      dumped.reduce((sum, dump) => sum + dump.bytes, 0) +
      Buffer.byteLength(record) +
      Buffer.byteLength(manifestText)

    context.report(10, 'listing the site’s files')
    const files = task.files ? await siteFiles(site.home, context.signal) : null
    const sample = files ? await hashSample(files, task.verify.sampleFiles) : []

    context.report(12, 'uploading')
    const summary = await snapshot(restic, task, site, folder, context)

    const checks = await checkBackup(restic, task, summary.snapshotId, folder, files, sample, context)
    context.report(98, 'reading the repository’s size')
    const repositoryBytes = await restic.repositoryBytes()
    const databases: DumpedDatabase[] = dumped.map((dump) => ({
      databaseId: dump.databaseId,
      bytes: dump.bytes,
      tables: dump.tables,
      restoredTables: checks.restoredTables.get(dump.databaseId) ?? -1,
    }))
    return {
      ok: true,
      task: 'backup',
      snapshotId: summary.snapshotId,
      sizeBytes: summary.totalBytes,
      storedBytes: Math.max(0, Math.min(summary.dataAdded, repositoryBytes - bytesBefore)),
      repositoryBytes,
      files: task.files
        ? {
            count: Math.max(0, summary.totalFiles - stagedFiles),
            bytes: Math.max(0, summary.totalBytes - stagedBytes),
          }
        : null,
      databases,
      checks: {
        repository: { readDataPercent: task.verify.readDataPercent },
        files: { sampled: checks.sampled, matched: checks.matched },
      },
    }
  } finally {
    await staging.release()
    await access.release()
  }
}

/** One `restic backup` of the home and the staged folder, its progress reported from restic's status lines. */
async function snapshot(
  restic: Restic,
  task: Backup,
  site: NodeSite,
  folder: string,
  context: RunContext,
): Promise<Summary> {
  const paths = task.files ? [site.home, folder] : [folder]
  const excludes = task.files
    ? [
        ...[...excludedAtTop].flatMap((name) => ['--exclude', literalPattern(join(site.home, name))]),
        '--exclude',
        `${literalPattern(join(site.home, restoreFolderPrefix))}*`,
      ]
    : []
  let summary: Summary | null = null
  await restic.json(
    ['backup', '--tag', task.backupId, '--one-file-system', ...excludes, '--', ...paths],
    'taking the snapshot',
    (message) => {
      if (message.message_type === 'status') {
        const done = Number(message.percent_done ?? 0)
        context.report(12 + Math.round(Math.min(1, done) * 58), 'uploading')
      } else if (message.message_type === 'summary') {
        summary = {
          snapshotId: String(message.snapshot_id ?? ''),
          totalFiles: Number(message.total_files_processed ?? 0),
          totalBytes: Number(message.total_bytes_processed ?? 0),
          dataAdded: Number(message.data_added ?? 0),
        }
      }
    },
  )
  const taken = summary as Summary | null
  if (!taken?.snapshotId) throw new RunFailure('failed', 'restic made no snapshot.')
  // restic 0.14's summary names the snapshot by its short id; the panel keeps the whole.
  return { ...taken, snapshotId: (await snapshotOf(restic, taken.snapshotId)).id }
}
