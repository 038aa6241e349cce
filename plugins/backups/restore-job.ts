// The `backup.restore` job: a completed backup restored into its own site (after a `pre-restore` backup of what it
// replaces, so one call undoes it) or into a new site of the same customer and type (a clone, on any node, from an
// offsite target even after the first node's data is gone). Run once: a restore interrupted halfway is not started
// again on its own (`restore_interrupted`); its pre-restore backup puts the site back.

import {
  type JobDefinition,
  JobFailure,
  type JobRun,
  type PluginContext,
  type Static,
  t,
} from '../../core/index.ts'
import { databaseBackupAccess, type LeasedLogin } from '../databases/contract.ts'
import { type Node, nodeDirectory } from '../nodes/contract.ts'
import { type SiteRef, siteDirectory } from '../sites/contract.ts'
import { failBackup } from './backup-outcomes.ts'
import { Backup, type BackupContents, type ClonedSite, restoreAdapters } from './contract.ts'
import type { BackupsTable, BackupTargetsTable } from './migrations.ts'
import type { DumpTarget } from './node/protocol.ts'
import { backupById, backupTables, targetById, toBackup } from './repository.ts'
import { leaseForRestore, type RestoreWork, releaseLeases, restoreOnNode } from './restore-run.ts'
import { undoCall } from './restore-undo.ts'
import type { backupTaker } from './take-backup.ts'
import { backupsLane } from './take-job.ts'

/** The job's kind. */
export const restoreJobKind = 'backup.restore'

/** What the job is given. */
export interface RestoreInput {
  readonly backupId: string
  /** The backup's site. */
  readonly siteId: string
  readonly files: boolean | readonly string[]
  readonly databases: boolean | readonly string[]
  /** The clone restored into, or null: the backup's own site. */
  readonly cloneSiteId: string | null
}

/** What `backup.restored` carries: the backup restored, and what and where. */
export const RestoredBackup = t.Object(
  {
    ...Backup.properties,
    restore: t.Object({
      jobId: t.String(),
      siteId: t.String({ description: 'The site restored into: the backup’s own, or the clone.' }),
      files: t.Union([t.Boolean(), t.Array(t.String())]),
      databases: t.Array(t.String(), { description: 'The databases loaded (the backup’s ids).' }),
      preRestoreBackupId: t.Union([t.String(), t.Null()], {
        description:
          'The backup of what the restore replaced: restore it to undo this one. Null for a clone.',
      }),
    }),
  },
  { $id: 'RestoredBackup' },
)
export type RestoredBackup = Static<typeof RestoredBackup>

/** Everyone's view: the route checked the caller's. */
const everyone = { kind: 'all' } as const

/** How often the clone's provisioning is looked at. */
const clonePollMs = 2000

/** The job definition. */
export function restoreJob(
  context: PluginContext,
  laneSize: number,
  take: ReturnType<typeof backupTaker>,
): JobDefinition {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)
  const access = context.use(databaseBackupAccess)
  const adapters = context.extensionPoint(restoreAdapters)

  async function run(job: JobRun): Promise<Record<string, unknown>> {
    const input = job.input as unknown as RestoreInput
    if (job.attempt > 1)
      throw new JobFailure(
        'The restore was interrupted (the panel stopped) and is not started again on its own: restore its pre-restore backup to put the site back as it was, or restore again.',
        'restore_interrupted',
      )
    const backup = await backupById(context.db, input.backupId)
    if (backup?.status !== 'completed' || !backup.snapshot_id)
      throw new JobFailure('The backup is gone or not completed.', 'backup_not_completed')
    const target = await targetById(context.db, backup.target_id)
    if (!target) throw new JobFailure('The backup’s target was removed.', 'repository_unreachable')
    const source = await sites.find(context.db, everyone, input.siteId)
    const contents = JSON.parse(backup.contents_json ?? 'null') as BackupContents | null
    const databaseIds = chosenDatabases(input.databases, contents)
    // Backups go with their site (docs/backups.md), so the site is there unless it is being deleted meanwhile.
    if (!source) throw new JobFailure('The backup’s site is gone.', 'site_unavailable')
    if (input.cloneSiteId === null) {
      const preRestore = await preRestoreOf(job)
      await takePreRestore(job, preRestore)
      const into: DumpTarget[] = []
      const leases: LeasedLogin[] = []
      try {
        for (const databaseId of databaseIds) {
          const login = await leaseForRestore(context, access, databaseId, source.nodeId, leases)
          into.push({ databaseId, into: login })
        }
        await restore(job, backup, target, source, source, { files: input.files, keep: [], databases: into })
      } finally {
        await releaseLeases(leases)
      }
      return finish(job, backup, source.id, input.files, databaseIds, preRestore?.id ?? null)
    }
    // A clone: the new site, once provisioned, gets the backup's files (but what its type keeps of its own) and its
    // databases' dumps loaded into those the type maps them to.
    const from: ClonedSite = source
    const clone = await untilProvisioned(job, input.cloneSiteId)
    const adapter = adapters.get(clone.type)
    if (!adapter)
      throw new JobFailure(
        `No restore adapter says how to clone a ${clone.type} site.`,
        'clone_type_unsupported',
      )
    const into: DumpTarget[] = []
    const leases: LeasedLogin[] = []
    try {
      for (const databaseId of databaseIds) {
        const cloneDatabaseId = await adapter.databaseFor(job, from, clone, databaseId)
        if (cloneDatabaseId === null) continue
        const login = await leaseForRestore(context, access, cloneDatabaseId, clone.nodeId, leases)
        into.push({ databaseId, into: login })
      }
      await restore(job, backup, target, from, clone, {
        files: input.files,
        keep: adapter.keepOnClone,
        databases: into,
      })
    } finally {
      await releaseLeases(leases)
    }
    await job.progress(95, 'adapting the clone')
    await adapter.cloned?.(job, from, clone)
    return finish(job, backup, clone.id, input.files, databaseIds, null)
  }

  /** The pre-restore backup the route asked for with this job, if any. */
  async function preRestoreOf(job: JobRun): Promise<BackupsTable | undefined> {
    return backupTables(context.db)
      .selectFrom('backups')
      .selectAll()
      .where('restore_job_id', '=', job.id)
      .executeTakeFirst()
  }

  /** Takes the pre-restore backup; a failure fails the restore before anything was touched. */
  async function takePreRestore(job: JobRun, row: BackupsTable | undefined): Promise<void> {
    if (!row) return
    if (row.status === 'completed') return
    if (row.status === 'failed')
      throw new JobFailure(
        'The backup of what the restore replaces failed: nothing was restored.',
        'pre_restore_failed',
      )
    try {
      await take(job, row, { from: 2, to: 45, prefix: 'pre-restore backup' })
    } catch (error) {
      const code = error instanceof JobFailure ? error.code : 'failed'
      throw new JobFailure(
        `The backup of what the restore replaces failed (${code}): nothing was restored.`,
        'pre_restore_failed',
      )
    }
  }

  /** The node's restore task into `into`'s node, from the repository of the backup's site. */
  async function restore(
    job: JobRun,
    backup: BackupsTable,
    target: BackupTargetsTable,
    from: { readonly id: string; readonly customerId: string },
    into: { readonly id: string; readonly nodeId: string | null },
    work: RestoreWork,
  ): Promise<void> {
    const node = await nodeOf(into.nodeId)
    await restoreOnNode(context, nodes, job, backup, target, from, { siteId: into.id, node }, work, {
      from: 50,
      to: 93,
      prefix: 'restoring',
    })
  }

  async function nodeOf(nodeId: string | null): Promise<Node> {
    const node = nodeId ? await nodes.find(nodeId) : null
    if (!node) throw new JobFailure('The site has no node.', 'node_unreachable')
    return node
  }

  /** Waits until the clone is provisioned (`active`), or fails with its provisioning's failure. */
  async function untilProvisioned(job: JobRun, siteId: string): Promise<SiteRef & ClonedSite> {
    for (;;) {
      job.signal.throwIfAborted()
      const site = await sites.find(context.db, everyone, siteId)
      if (!site) throw new JobFailure('The new site was deleted before it was restored into.', 'clone_failed')
      if (site.status === 'active') return site
      if (site.status !== 'provisioning')
        throw new JobFailure(
          `The new site is ${site.status}, not active: nothing was restored.`,
          'clone_failed',
        )
      await job.progress(10, 'waiting for the new site to be provisioned')
      await Bun.sleep(clonePollMs)
    }
  }

  /** `backup.restored`, and the job's result naming the backup that undoes the restore. */
  async function finish(
    job: JobRun,
    backup: BackupsTable,
    siteId: string,
    files: boolean | readonly string[],
    databases: readonly string[],
    preRestoreBackupId: string | null,
  ): Promise<Record<string, unknown>> {
    const restore = {
      jobId: job.id,
      siteId,
      files: files as boolean | string[],
      databases: [...databases],
      preRestoreBackupId,
    }
    await job.transaction(async (trx) => {
      await job.audit(trx, {
        action: 'backup.restore',
        subject: { type: 'backup', id: backup.id },
        customerId: backup.customer_id,
        details: { ...restore, finished: true },
      })
      await job.emit(trx, {
        kind: 'backup.restored',
        customerId: backup.customer_id,
        data: { ...toBackup(backup), restore } satisfies RestoredBackup,
      })
    })
    return {
      backupId: backup.id,
      siteId,
      files,
      databases,
      preRestoreBackupId,
      // Undoing is one call: the same selection restored from the backup taken just before.
      undo: undoCall(siteId, preRestoreBackupId, files, databases),
    }
  }

  return {
    kind: restoreJobKind,
    description:
      'Restores a completed backup: into its own site after a `pre-restore` backup of what it replaces (its result names it as `preRestoreBackupId`, and `undo` is the call that puts the site back), or into a new site (a clone) once it is provisioned, keeping what its type keeps of its own. A restore interrupted by a panel restart fails with `restore_interrupted` rather than starting again.',
    cancellable: true,
    maxAttempts: 1,
    lane: { name: backupsLane, concurrency: laneSize },
    timeoutMs: 6 * 60 * 60_000,
    run,
    // A pre-restore backup the restore did not finish taking fails with it.
    async onGivenUp(trx, job, _outcome, error) {
      const rows = await backupTables(trx)
        .selectFrom('backups')
        .select('id')
        .where('restore_job_id', '=', job.id)
        .where('status', '=', 'running')
        .execute()
      for (const row of rows)
        await failBackup(trx, { emit: job.emit, audit: job.audit, usage: context.usage }, row.id, error)
    },
  }
}

/** The backup's database ids a restore loads: all of them for `true`, the listed ones, or none. */
export function chosenDatabases(
  asked: boolean | readonly string[],
  contents: BackupContents | null,
): readonly string[] {
  if (asked === false) return []
  const held = (contents?.databases ?? []).map((db) => db.databaseId)
  return asked === true ? held : asked.filter((id) => held.includes(id))
}
