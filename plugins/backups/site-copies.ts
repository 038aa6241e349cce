// The `siteCopies` service (contract.ts): one site copied into another of its customer and type through a fresh
// backup, in the job of the plugin that asked (staging: a new staging copy, a push to live). The backup of the source
// and, for a push, the pre-restore backup of the site replaced are taken first by that job; then the source's
// backup is restored into the other site as a clone is (what its type keeps of its own kept, the databases its
// type maps loaded, only the chosen tables when some are), its restore adapter moves the domain, and the result
// names the restore that undoes it.

import { JobFailure, type JobRun, type PluginContext } from '../../core/index.ts'
import { databaseBackupAccess, type LeasedLogin } from '../databases/contract.ts'
import { nodeDirectory } from '../nodes/contract.ts'
import { type SiteRef, siteDirectory } from '../sites/contract.ts'
import { failBackup } from './backup-outcomes.ts'
import { requestBackup } from './backup-requests.ts'
import {
  type BackupContents,
  type ClonedSite,
  restoreAdapters,
  type SiteCopies,
  type SiteCopyPlan,
  type SiteCopyResult,
} from './contract.ts'
import { leaseRefusal } from './lease-refusal.ts'
import type { BackupsTable } from './migrations.ts'
import type { DumpTarget } from './node/protocol.ts'
import { runOnNode } from './node-runs.ts'
import { backupTables, targetById, toBackup } from './repository.ts'
import type { RestoredBackup } from './restore-job.ts'
import { undoCall } from './restore-undo.ts'
import { siteRepository } from './site-repository.ts'
import type { backupTaker } from './take-backup.ts'

const everyone = { kind: 'all' } as const
const pollMs = 2000

/** The service, its backups taken with `take` (made on first use: the services it uses are all set up by then). */
export function siteCopiesService(
  context: PluginContext,
  taker: () => ReturnType<typeof backupTaker>,
): SiteCopies {
  const sites = () => context.use(siteDirectory)
  const nodes = () => context.use(nodeDirectory)
  const access = () => context.use(databaseBackupAccess)
  const adapters = () => context.extensionPoint(restoreAdapters)
  // The backups plugin's own records: the job is another plugin's, which emits only its own events.
  const writers = { emit: context.emit, audit: context.audit, usage: context.usage }

  /** The backup of `siteId` asked for with the job. */
  async function row(job: JobRun, siteId: string): Promise<BackupsTable | undefined> {
    return backupTables(context.db)
      .selectFrom('backups')
      .selectAll()
      .where('restore_job_id', '=', job.id)
      .where('site_id', '=', siteId)
      .executeTakeFirst()
  }

  /** Waits while `siteId` is provisioning; answers it once active, or fails. */
  async function activeSite(job: JobRun, siteId: string, what: string): Promise<SiteRef> {
    for (;;) {
      job.signal.throwIfAborted()
      const site = await sites().find(context.db, everyone, siteId)
      if (!site) throw new JobFailure(`The ${what} was deleted: nothing was copied.`, 'copy_failed')
      if (site.status === 'active') return site
      if (site.status !== 'provisioning')
        throw new JobFailure(`The ${what} is ${site.status}, not active: nothing was copied.`, 'copy_failed')
      await job.progress(36, `waiting for the ${what} to be provisioned`)
      await Bun.sleep(pollMs)
    }
  }

  async function lease(databaseId: string, nodeId: string | null, leases: LeasedLogin[]) {
    try {
      const leased = await access().lease(databaseId, 'readwrite', nodeId)
      leases.push(leased)
      return leased.login
    } catch (error) {
      throw new JobFailure(
        `The database ${databaseId} cannot be written now: ${leaseRefusal(context, databaseId, error)}`,
        'database_unavailable',
      )
    }
  }

  return {
    async request(trx, jobId, from, into) {
      const source = await requestBackup(
        context,
        trx,
        { site: from, reason: 'manual', restoreJobId: jobId },
        { enqueueJob: context.enqueueJob, audit: context.audit },
      )
      const pre = into
        ? await requestBackup(
            context,
            trx,
            { site: into, reason: 'pre-restore', restoreJobId: jobId },
            { enqueueJob: context.enqueueJob, audit: context.audit },
          )
        : null
      return { sourceBackupId: source.backup.id, preRestoreBackupId: pre?.backup.id ?? null }
    },

    async run(job, plan: SiteCopyPlan): Promise<SiteCopyResult> {
      if (job.attempt > 1)
        throw new JobFailure(
          'The copy was interrupted (the panel stopped) and is not started again on its own: its pre-restore backup puts the site back.',
          'copy_interrupted',
        )
      const take = taker()
      const sourceRow = await row(job, plan.fromSiteId)
      if (!sourceRow) throw new JobFailure('The backup the copy is made of is gone.', 'copy_failed')
      const preRow = plan.purpose === 'push' ? await row(job, plan.intoSiteId) : undefined
      // At once, each settled before any failure is said (no run is left going on a node): the source's backup,
      // and the other site's pre-restore backup (a push) or its provisioning (a new site).
      const [taken, other] = await Promise.allSettled([
        sourceRow.status === 'running'
          ? take(job, sourceRow, { from: 2, to: 45, prefix: 'backup of the source' }, writers)
          : Promise.resolve(sourceRow),
        (async () => {
          if (preRow?.status === 'running')
            await take(job, preRow, { from: 2, to: 45, prefix: 'pre-restore backup' }, writers).catch(
              (error) => {
                const code = error instanceof JobFailure ? error.code : 'failed'
                throw new JobFailure(
                  `The backup of what the copy replaces failed (${code}): nothing was changed.`,
                  'pre_restore_failed',
                )
              },
            )
          else if (preRow && preRow.status !== 'completed')
            throw new JobFailure(
              'The backup of what the copy replaces failed: nothing was changed.',
              'pre_restore_failed',
            )
          return activeSite(job, plan.intoSiteId, plan.purpose === 'push' ? 'live site' : 'new site')
        })(),
      ])
      if (taken.status === 'rejected') throw taken.reason
      if (other.status === 'rejected') throw other.reason
      const source = taken.value
      if (source.status !== 'completed' || !source.snapshot_id)
        throw new JobFailure('The backup of the source failed: nothing was copied.', 'copy_failed')
      const from = await sites().find(context.db, everyone, plan.fromSiteId)
      if (!from) throw new JobFailure('The source site is gone.', 'copy_failed')
      const into = other.value
      const adapter = adapters().get(into.type)
      if (!adapter || from.type !== into.type)
        throw new JobFailure(
          `No restore adapter says how to copy a ${from.type} site.`,
          'clone_type_unsupported',
        )
      const before = await adapter.beforeCopy?.(job, into, plan.purpose)
      const pre = preRow

      const contents = JSON.parse(source.contents_json ?? 'null') as BackupContents | null
      const targets: DumpTarget[] = []
      const loaded: string[] = []
      const leases: LeasedLogin[] = []
      try {
        if (plan.databases)
          for (const dump of contents?.databases ?? []) {
            const mapped = await adapter.databaseFor(job, from, into, dump.databaseId)
            if (mapped === null) continue
            const login = await lease(mapped, into.nodeId, leases)
            if (plan.tables !== null && login.engine !== 'mariadb')
              throw new JobFailure('Only a MariaDB database’s tables can be chosen.', 'tables_unsupported')
            targets.push({
              databaseId: dump.databaseId,
              into: login,
              ...(plan.tables === null ? {} : { tables: plan.tables }),
            })
            loaded.push(mapped)
          }
        const node = into.nodeId ? await nodes().find(into.nodeId) : null
        if (!node) throw new JobFailure('The site has no node.', 'node_unreachable')
        const target = await targetById(context.db, source.target_id)
        if (!target) throw new JobFailure('The backup’s target was removed.', 'repository_unreachable')
        if (target.kind === 'local' && source.node_id !== node.id)
          throw new JobFailure(
            'The backup is on another node’s own disk (a local target): it is copied only on that node.',
            'repository_unreachable',
          )
        const { spec } = await siteRepository(context, target, from, 'push')
        const outcome = await runOnNode(
          nodes(),
          node,
          into.id,
          {
            task: 'restore',
            repository: spec,
            snapshotId: source.snapshot_id,
            files: plan.files,
            keep: adapter.keepOnClone,
            databases: targets,
          },
          job,
          { from: 61, to: 90, prefix: 'copying' },
        )
        if (!outcome.ok) throw new JobFailure(outcome.message, outcome.code)
      } finally {
        await Promise.all(leases.map((leased) => leased.release().catch(() => {})))
      }
      await job.progress(92, 'moving the addresses')
      const fromSite: ClonedSite = from
      const intoSite: ClonedSite = into
      await adapter.cloned?.(job, fromSite, intoSite)
      await adapter.copied?.(job, fromSite, intoSite, plan.purpose, before)
      const result: SiteCopyResult = {
        sourceBackupId: source.id,
        preRestoreBackupId: pre?.id ?? null,
        files: plan.files,
        databases: loaded,
        tables: plan.tables,
        // Listed paths are undone as the whole `/htdocs`: a path the push made new on the site is not in the
        // pre-restore backup, and a restore refuses a listed path its backup lacks.
        undo: undoCall(
          into.id,
          pre?.id ?? null,
          Array.isArray(plan.files) ? ['/htdocs'] : plan.files,
          loaded,
        ),
      }
      const restore = {
        jobId: job.id,
        siteId: into.id,
        files: plan.files as boolean | string[],
        databases: targets.map((t) => t.databaseId),
        preRestoreBackupId: result.preRestoreBackupId,
      }
      const done = source
      // The backups plugin's records (the staging plugin's job emits only its own events).
      await job.transaction(async (trx) => {
        await context.audit(trx, {
          action: 'backup.restore',
          subject: { type: 'backup', id: done.id },
          customerId: done.customer_id,
          details: { ...restore, tables: plan.tables, purpose: plan.purpose, finished: true },
        })
        await context.emit(trx, {
          kind: 'backup.restored',
          customerId: done.customer_id,
          data: { ...toBackup(done), restore } satisfies RestoredBackup,
        })
      })
      return result
    },

    async givenUp(trx, job, error) {
      const rows = await backupTables(trx)
        .selectFrom('backups')
        .select('id')
        .where('restore_job_id', '=', job.id)
        .where('status', '=', 'running')
        .execute()
      for (const { id } of rows) await failBackup(trx, writers, id, error)
    },
  }
}
