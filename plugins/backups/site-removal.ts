// What happens to a site's backups when the site (or its customer) is deleted: they go with it. Backups running
// are cancelled; the rows (backups, download links, staff's policy) are removed at once, so nothing lists or
// restores them; each repository is emptied by a `backup.purge` job, whose row, and the customer's `backupMB` it
// counts, go when it is done: on a remote target on the panel (every snapshot forgotten and pruned with the target's
// prune credentials), on a `local` target by each node that took its backups (its folder removed from the node's
// disk, asked of the node itself: it no longer holds the site). docs/backups.md, "Deleting a site".

import { type JobDefinition, type JobRun, jobIsLive, type PluginContext, type Trx } from '../../core/index.ts'
import { nodeCommand, nodeDirectory } from '../nodes/contract.ts'
import { backupsServiceName } from './contract.ts'
import type { BackupsNodeRequest } from './node/protocol.ts'
import { forgetOnPanel, runRestic } from './panel-restic.ts'
import { backupTables, megabytesOf, targetById } from './repository.ts'
import { siteRepository } from './site-repository.ts'

/** The job that empties a deleted site's repository on a remote target. */
export const purgeJobKind = 'backup.purge'

/** What the purge job is given. */
export interface PurgeInput {
  readonly siteId: string
  readonly targetId: string
  /** For a `local` target: the nodes that took the site's backups, each holding a repository folder. */
  readonly nodeIds?: readonly string[]
}

/**
 * Removes the backups of site `siteId` (in its deletion job `run`, or its customer's): idempotent, as dependents'
 * removals must be (a run again after a crash starts a purge again, which finds nothing more to do).
 */
export async function removeSiteBackups(context: PluginContext, run: JobRun, siteId: string): Promise<void> {
  await run.transaction(async (trx) => {
    await cancelRunning(context, trx, siteId)
    const tables = backupTables(trx)
    const repositories = await tables
      .selectFrom('backup_repositories')
      .selectAll()
      .where('site_id', '=', siteId)
      .execute()
    for (const repository of repositories) {
      const target = await targetById(trx, repository.target_id)
      if (!target) {
        await dropRepositoryRow(context, trx, repository)
        continue
      }
      const nodeIds =
        target.kind === 'local'
          ? (
              await tables
                .selectFrom('backups')
                .select('node_id')
                .distinct()
                .where('site_id', '=', siteId)
                .where('target_id', '=', target.id)
                .where('node_id', 'is not', null)
                .execute()
            ).map((row) => row.node_id as string)
          : undefined
      await context.enqueueJob(trx, {
        kind: purgeJobKind,
        customerId: repository.customer_id,
        subject: { type: 'site', id: siteId },
        input: {
          siteId,
          targetId: repository.target_id,
          ...(nodeIds ? { nodeIds } : {}),
        } satisfies PurgeInput,
      })
    }
    const removed = await tables.deleteFrom('backups').where('site_id', '=', siteId).executeTakeFirst()
    await tables.deleteFrom('backup_downloads').where('site_id', '=', siteId).execute()
    await tables.deleteFrom('backup_policies').where('site_id', '=', siteId).execute()
    const customerId = repositories[0]?.customer_id ?? null
    if (Number(removed.numDeletedRows) > 0 || repositories.length > 0)
      await run.audit(trx, {
        action: 'backup.remove',
        subject: { type: 'site', id: siteId },
        customerId,
        details: {
          reason: 'site deleted',
          backups: Number(removed.numDeletedRows),
          purged: repositories.map((repository) => repository.target_id),
        },
      })
  })
}

/** Cancels the site's backups and restores that still run (their rows go; their jobs find nothing to record). */
async function cancelRunning(context: PluginContext, trx: Trx, siteId: string): Promise<void> {
  const rows = await backupTables(trx)
    .selectFrom('backups')
    .select(['job_id', 'restore_job_id'])
    .where('site_id', '=', siteId)
    .where('status', '=', 'running')
    .execute()
  for (const row of rows)
    for (const jobId of [row.job_id, row.restore_job_id])
      if (jobId && (await jobIsLive(trx, jobId))) await context.cancelJob(trx, jobId)
}

/** Forgets the repository's row, and gives the customer back the `backupMB` it counted. */
async function dropRepositoryRow(
  context: PluginContext,
  trx: Trx,
  repository: { site_id: string; target_id: string; customer_id: string; stored_bytes: number },
): Promise<void> {
  await backupTables(trx)
    .deleteFrom('backup_repositories')
    .where('site_id', '=', repository.site_id)
    .where('target_id', '=', repository.target_id)
    .execute()
  const megabytes = megabytesOf(Number(repository.stored_bytes))
  if (megabytes > 0) await context.usage.adjust(trx, repository.customer_id, 'backupMB', -megabytes)
}

/** The purge job: every snapshot of the repository forgotten and its data pruned, then its row removed. */
export function purgeJob(context: PluginContext): JobDefinition {
  const nodes = context.use(nodeDirectory)
  return {
    kind: purgeJobKind,
    description:
      'Empties a deleted site’s repository: on a remote target from the panel, with the target’s prune credentials (every snapshot forgotten and its data pruned); on a `local` target, its folder removed by each node that took its backups. Tried again while the target or a node cannot be reached.',
    maxAttempts: 10,
    timeoutMs: 60 * 60_000,
    async run(job) {
      const { siteId, targetId, nodeIds } = job.input as unknown as PurgeInput
      const repository = await backupTables(context.db)
        .selectFrom('backup_repositories')
        .selectAll()
        .where('site_id', '=', siteId)
        .where('target_id', '=', targetId)
        .executeTakeFirst()
      if (!repository) return { purged: 0 }
      const target = await targetById(context.db, targetId)
      let snapshots: string[] = []
      if (target?.kind === 'local') {
        await job.progress(10, 'removing the repository from its nodes')
        for (const nodeId of nodeIds ?? []) {
          const node = await nodes.find(nodeId)
          // A node deleted since took its disk with it.
          if (!node) continue
          await nodes.send(
            node,
            nodeCommand('node-call', {
              service: backupsServiceName,
              request: { op: 'repository.drop', name: siteId } satisfies BackupsNodeRequest,
            }),
            job.signal,
          )
        }
      } else if (target) {
        await job.progress(10, 'listing snapshots')
        const site = { id: siteId, customerId: repository.customer_id }
        const { spec } = await siteRepository(context, target, site, 'prune')
        const { stdout } = await runRestic(spec, ['snapshots', '--json'], job.signal)
        snapshots = ((JSON.parse(stdout) as { id: string }[] | null) ?? []).map((snapshot) => snapshot.id)
        await job.progress(40, 'forgetting snapshots')
        if (snapshots.length > 0) await forgetOnPanel(spec, snapshots, job.signal)
      }
      await job.transaction((trx) => dropRepositoryRow(context, trx, repository))
      return { purged: snapshots.length }
    },
  }
}
