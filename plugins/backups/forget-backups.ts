// Forgets backups of a site (retention, a site's deletion): their snapshots removed from the repository and the
// data only they used pruned, where the target says. A repository on a node's own disk (`local`) is pruned by that
// node's `forget` task; a remote one by the panel itself with the target's prune credentials, which nodes never hold
// (a push-only target's nodes cannot delete). Then, in one transaction, the rows are marked `forgotten_at` (no longer
// listed), and the repository's bytes and the customer's `backupMB` follow.

import { type JobRun, nowIso, type PluginContext } from '../../core/index.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import { setRepositoryBytes } from './backup-outcomes.ts'
import { siteBusyWith } from './backup-requests.ts'
import type { BackupsTable, BackupTargetsTable } from './migrations.ts'
import { runOnNode } from './node-runs.ts'
import { forgetOnPanel, runRestic } from './panel-restic.ts'
import { backupTables, targetById } from './repository.ts'
import { siteRepository } from './site-repository.ts'

/** What forgetting did. */
export interface ForgottenBackups {
  /** The backups now forgotten (those already forgotten, or of another site, are left out). */
  readonly forgotten: readonly string[]
}

/**
 * Forgets the backups `backupIds` of site `siteId` inside `job` (its signal stops it between repositories): a
 * failure of one repository (its node or target away) throws, leaving its rows listed for the next run. Nothing is
 * forgotten while a backup or restore of the site runs (`forgotten` is empty then).
 * @example await forgetBackups(context, job, site.id, expired.map((backup) => backup.id))
 */
export async function forgetBackups(
  context: PluginContext,
  job: JobRun,
  siteId: string,
  backupIds: readonly string[],
): Promise<ForgottenBackups> {
  if (backupIds.length === 0) return { forgotten: [] }
  // Never under a backup or restore of the site: the restore may be reading one of them. The next pass (after the
  // site's next backup) forgets them.
  if ((await siteBusyWith(context.db, siteId)) !== null) return { forgotten: [] }
  const rows = await backupTables(context.db)
    .selectFrom('backups')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('id', 'in', [...backupIds])
    .where('forgotten_at', 'is', null)
    .where('status', '!=', 'running')
    .execute()
  const forgotten: string[] = []
  for (const group of byRepository(rows)) {
    job.signal.throwIfAborted()
    const target = await targetById(context.db, group.targetId)
    const snapshots = group.rows.flatMap((row) => (row.snapshot_id ? [row.snapshot_id] : []))
    // A failed backup has no snapshot: it is only forgotten. A target removed since holds none of them any more.
    const repositoryBytes =
      snapshots.length === 0 || !target ? null : await forgetIn(context, job, target, group, snapshots)
    await job.transaction(async (trx) => {
      const now = nowIso()
      for (const row of group.rows)
        await backupTables(trx)
          .updateTable('backups')
          .set({ forgotten_at: now })
          .where('id', '=', row.id)
          .where('forgotten_at', 'is', null)
          .execute()
      const first = group.rows[0] as BackupsTable
      if (repositoryBytes !== null) await setRepositoryBytes(trx, context, first, repositoryBytes)
      await job.audit(trx, {
        action: 'backup.forget',
        subject: { type: 'site', id: siteId },
        customerId: first.customer_id,
        details: { backupIds: group.rows.map((row) => row.id), targetId: group.targetId },
      })
    })
    forgotten.push(...group.rows.map((row) => row.id))
  }
  return { forgotten }
}

/** Backups grouped by the repository holding them: a target, and for a `local` one the node that took them. */
interface RepositoryGroup {
  readonly targetId: string
  readonly nodeId: string | null
  readonly rows: BackupsTable[]
}

function byRepository(rows: readonly BackupsTable[]): RepositoryGroup[] {
  const groups = new Map<string, RepositoryGroup>()
  for (const row of rows) {
    const key = `${row.target_id}/${row.node_id ?? ''}`
    const group = groups.get(key) ?? { targetId: row.target_id, nodeId: row.node_id, rows: [] }
    group.rows.push(row)
    groups.set(key, group)
  }
  return [...groups.values()]
}

/** Removes `snapshots` from the group's repository and prunes it; answers the bytes it takes after. */
async function forgetIn(
  context: PluginContext,
  job: JobRun,
  target: BackupTargetsTable,
  group: RepositoryGroup,
  snapshots: readonly string[],
): Promise<number> {
  const first = group.rows[0] as BackupsTable
  const site = { id: first.site_id, customerId: first.customer_id }
  if (target.kind === 'local') {
    const nodes = context.use(nodeDirectory)
    const node = group.nodeId ? await nodes.find(group.nodeId) : null
    if (!node) throw new Error(`The node that holds the site’s local repository (${group.nodeId}) is gone`)
    const { spec } = await siteRepository(context, target, site, 'push')
    const outcome = await runOnNode(
      nodes,
      node,
      site.id,
      { task: 'forget', repository: spec, snapshotIds: snapshots },
      job,
      {
        from: 0,
        to: 100,
        prefix: 'forgetting backups',
      },
    )
    if (!outcome.ok) throw Object.assign(new Error(outcome.message), { code: outcome.code })
    if (outcome.task !== 'forget') throw new Error(`The node answered a ${outcome.task} run to a forget`)
    return outcome.repositoryBytes
  }
  const { spec } = await siteRepository(context, target, site, 'prune')
  await forgetOnPanel(spec, snapshots, job.signal)
  return repositoryBytesOnPanel(spec, job.signal)
}

/** The bytes a repository takes, as restic's `stats --mode raw-data` counts them, read from the panel. */
export async function repositoryBytesOnPanel(
  spec: Parameters<typeof runRestic>[0],
  signal: AbortSignal,
): Promise<number> {
  const { stdout } = await runRestic(spec, ['stats', '--json', '--mode', 'raw-data'], signal)
  const stats = JSON.parse(stdout) as { total_size?: number }
  return stats.total_size ?? 0
}
