// The `restore` task: the site's files made the snapshot's (restore-files.ts), then each database asked emptied and
// loaded from its dump in the snapshot through the run's login, so it holds exactly what the dump does.

import type { NodeSite } from '../../nodes/node/contract.ts'
import { dumpPath, layoutOf, manifestOf } from './backup-manifest.ts'
import { idPattern } from './backup-task.ts'
import { checkedLogin } from './database-clients.ts'
import { emptyDatabase } from './database-emptying.ts'
import { loadDump } from './dumps.ts'
import type { BackupTask, RunOutcome } from './protocol.ts'
import { Restic, snapshotOf } from './restic.ts'
import { resticAccess } from './restic-env.ts'
import { restoreFiles } from './restore-files.ts'
import type { RunContext } from './run-context.ts'
import { RunFailure } from './run-failure.ts'
import { drain, tableNamePattern, tablesOfDump } from './table-filter.ts'

type Restore = Extract<BackupTask, { task: 'restore' }>

/** Restores what the task asks; resolves with the files restored and the databases loaded. */
export async function runRestore(task: Restore, site: NodeSite, context: RunContext): Promise<RunOutcome> {
  for (const target of task.databases) {
    if (!idPattern.test(target.databaseId)) throw new RunFailure('failed', 'A database id is not acceptable.')
    checkedLogin(target.into)
    if (target.tables !== undefined) {
      if (
        !Array.isArray(target.tables) ||
        target.tables.length === 0 ||
        target.tables.length > 1000 ||
        !target.tables.every((name) => typeof name === 'string' && tableNamePattern.test(name))
      )
        throw new RunFailure('failed', 'A table name is not acceptable.')
      if (target.into.engine !== 'mariadb')
        throw new RunFailure('restore_failed', 'Only a MariaDB database’s tables can be chosen.')
    }
  }
  if (
    !Array.isArray(task.keep) ||
    (task.files !== true && task.files !== false && !Array.isArray(task.files))
  )
    throw new RunFailure('failed', 'The restore’s paths are not acceptable.')
  const access = await resticAccess(task.repository, context.dataDir)
  try {
    const restic = new Restic(access, context.groups, [context.dataDir, site.home])
    context.report(2, 'opening the repository')
    await restic.open(false)
    const snapshot = await snapshotOf(restic, task.snapshotId)
    const layout = layoutOf(snapshot)
    const manifest = task.databases.length > 0 ? await manifestOf(restic, snapshot.id, layout) : null
    for (const target of task.databases)
      if (!manifest?.databases.some((dump) => dump.databaseId === target.databaseId))
        throw new RunFailure('restore_failed', `The backup holds no dump of ${target.databaseId}.`)
    const files =
      task.files === false
        ? 0
        : await restoreFiles(
            restic,
            snapshot.id,
            layout,
            site,
            { files: task.files, keep: task.keep },
            context,
          )
    // Listed tables are looked for in their dumps before anything changes: one missing fails the run untouched.
    for (const target of task.databases) {
      if (!target.tables) continue
      const seen = new Set<string>()
      const dump = context.groups.spawn(
        restic.argv(['dump', snapshot.id, dumpPath(layout, target.databaseId)]),
        { env: restic.env, stdout: 'pipe' },
      )
      await drain(tablesOfDump(dump.child.stdout as ReadableStream<Uint8Array>, new Set(), seen))
      const read = await dump.finished
      if (read.code !== 0) throw restic.failure(read, `reading the dump of ${target.databaseId}`)
      const missing = target.tables.filter((name) => !seen.has(name))
      if (missing.length > 0)
        throw new RunFailure(
          'not_in_backup',
          `The dump of ${target.databaseId} has no table ${missing.slice(0, 5).join(', ')}.`,
        )
    }
    const loaded: string[] = []
    for (const target of task.databases) {
      context.report(90, `loading ${target.databaseId}`)
      const doing = `Loading ${target.databaseId}`
      // A whole database is emptied first; chosen tables replace only themselves (the dump drops and makes each).
      if (!target.tables)
        await emptyDatabase(target.into, context.groups, context.dataDir, target.databaseId, 'restore_failed')
      const dump = context.groups.spawn(
        restic.argv(['dump', snapshot.id, dumpPath(layout, target.databaseId)]),
        {
          env: restic.env,
          stdout: 'pipe',
        },
      )
      const stream = dump.child.stdout as ReadableStream<Uint8Array>
      await loadDump(
        target.into,
        target.tables ? tablesOfDump(stream, new Set(target.tables), new Set()) : stream,
        context.groups,
        context.dataDir,
        doing,
        'restore_failed',
      )
      const read = await dump.finished
      if (read.code !== 0) throw restic.failure(read, `reading the dump of ${target.databaseId}`)
      loaded.push(target.databaseId)
    }
    return { ok: true, task: 'restore', files, databases: loaded }
  } finally {
    await access.release()
  }
}
