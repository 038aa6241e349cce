// The schedule (`backup.schedule`): every minute or so, it finds the active sites whose daily or weekly slot is open
// (no running or completed scheduled backup since it) and asks for their backups, at most a few running at once on
// each node. A site past its `backupMB` gets a failed backup saying so (`backup_limit_reached`), not silence.

import {
  type JobDefinition,
  type JobRun,
  newId,
  type PluginContext,
  Problem,
  type Trx,
} from '../../../core/index.ts'
import { type SiteRef, siteDirectory } from '../../sites/contract.ts'
import { requestBackup } from '../backup-requests.ts'
import type { BackupsTable } from '../migrations.ts'
import { backupsProblems } from '../problems.ts'
import { insertBackup, targetOfSite, toBackup } from '../repository.ts'
import { backupsSince, scheduleStart } from './backups-since.ts'
import { effectivePolicy, planBackupsCache } from './effective-policy.ts'
import { claimScheduleLook } from './migrations.ts'
import type { ResolvedPolicyOptions } from './policy-options.ts'
import { ownPoliciesOf, runningBackupsByNode, scheduledAttemptsSince } from './policy-rows.ts'
import { policyStanding } from './policy-standing.ts'
import { sweepExpiredBackups } from './retention-sweep.ts'
import { schedulePeriodMs } from './schedule-slots.ts'

/** The schedule's job kind; its subject is `{ type: 'schedule', id: 'backups' }`. */
export const scheduleJobKind = 'backup.schedule'

/** Sites read at a time while the schedule walks the active ones. */
const walkBatch = 200

/** What one look did. */
export interface ScheduleLook {
  /** Backups asked for, by site. */
  readonly started: string[]
  /** Sites due that got a failed backup: their customer's `backupMB` is used up. */
  readonly refused: string[]
  /** Sites due left for a later look: their node runs as many backups as it may. */
  readonly waiting: string[]
  /** Sites the day's sweep started retention for (failed or pre-restore backups past their days). */
  readonly retained: string[]
}

/** Starts the schedule's job in `trx`. */
export function startScheduleLook(trx: Trx, context: Pick<PluginContext, 'enqueueJob'>): Promise<string> {
  return context.enqueueJob(trx, {
    kind: scheduleJobKind,
    customerId: null,
    subject: { type: 'schedule', id: 'backups' },
  })
}

/** The schedule's job. */
export function scheduleJob(context: PluginContext, options: ResolvedPolicyOptions): JobDefinition {
  const sites = context.use(siteDirectory)
  const everyone = { kind: 'all' } as const

  /** Asks for a due site's backup; answers what became of it. */
  async function backUp(job: JobRun, site: SiteRef): Promise<'started' | 'refused' | 'passed'> {
    try {
      await job.transaction((trx) =>
        requestBackup(
          context,
          trx,
          { site, reason: 'scheduled' },
          { enqueueJob: context.enqueueJob, audit: job.audit },
        ),
      )
      return 'started'
    } catch (error) {
      if (!(error instanceof Problem)) throw error
      if (error.code === backupsProblems.backup_limit_reached.code) {
        await recordRefusal(job, site, error)
        return 'refused'
      }
      // A backup or restore of the site runs: its slot is seen to at a later look, nothing to record.
      context.log.info({ siteId: site.id, code: error.code }, 'scheduled backup not started')
      return 'passed'
    }
  }

  /** A failed scheduled backup that says the customer's backups take their whole `backupMB`. */
  async function recordRefusal(job: JobRun, site: SiteRef, refusal: Problem): Promise<void> {
    await job.transaction(async (trx) => {
      const target = await targetOfSite(trx, site.id)
      if (!target) return
      // The schedule's clock: the slot this failure is weighed against is read on it.
      const now = options.now().toISOString()
      const row: BackupsTable = {
        id: newId('bkp'),
        site_id: site.id,
        customer_id: site.customerId,
        target_id: target.id,
        node_id: site.nodeId,
        status: 'failed',
        reason: 'scheduled',
        verified: 0,
        size_bytes: null,
        stored_bytes: null,
        contents_json: null,
        checks_json: null,
        snapshot_id: null,
        job_id: job.id,
        error_code: refusal.code,
        error_message: refusal.message,
        restore_job_id: null,
        created_at: now,
        finished_at: now,
        forgotten_at: null,
      }
      await insertBackup(trx, row)
      await job.audit(trx, {
        action: 'backup.create',
        subject: { type: 'backup', id: row.id },
        customerId: site.customerId,
        details: { siteId: site.id, reason: 'scheduled', targetId: target.id, refused: refusal.code },
      })
      await job.emit(trx, { kind: 'backup.failed', customerId: site.customerId, data: toBackup(row) })
    })
  }

  return {
    kind: scheduleJobKind,
    description:
      'The backup schedule, every minute: asks for a `scheduled` backup of each active site whose daily or weekly slot in the night window is open (no running or completed scheduled backup since it; a failed one is tried again an hour later, three times a slot at most), while its node runs fewer backups than it may at once; a site whose customer’s backups fill its `backupMB` gets a failed backup (`backup_limit_reached`). Once a day it also starts retention for sites with a failed or `pre-restore` backup past its days.',
    maxAttempts: 1,
    async run(job) {
      const now = options.now()
      const running = await runningBackupsByNode(context.db)
      const look: ScheduleLook = { started: [], refused: [], waiting: [], retained: [] }
      const planOf = planBackupsCache(context.db, context.quotas)
      const since = new Date(now.getTime() - schedulePeriodMs.weekly).toISOString()
      const installed = await backupsSince(context.db)
      let after: string | null = null
      for (;;) {
        job.signal.throwIfAborted()
        const batch = await sites.listActive(context.db, everyone, after, walkBatch)
        if (batch.length === 0) break
        const ids = batch.map((site) => site.id)
        const own = await ownPoliciesOf(context.db, ids)
        const attempts = await scheduledAttemptsSince(context.db, ids, since)
        for (const site of batch) {
          const { policy } = effectivePolicy(own.get(site.id), await planOf(site.customerId))
          const standing = policyStanding(
            {
              schedule: policy.schedule,
              site: { id: site.id, createdAt: scheduleStart(site.createdAt, installed) },
              lastGoodAt: null,
              attempts: attempts.get(site.id) ?? [],
            },
            options,
            now,
          )
          if (!standing.due || site.nodeId === null) continue
          if ((running.get(site.nodeId) ?? 0) >= options.backupsPerNode) {
            look.waiting.push(site.id)
            continue
          }
          const outcome = await backUp(job, site)
          if (outcome === 'started') {
            look.started.push(site.id)
            running.set(site.nodeId, (running.get(site.nodeId) ?? 0) + 1)
          } else if (outcome === 'refused') look.refused.push(site.id)
        }
        after = batch.at(-1)?.id ?? after
        if (batch.length < walkBatch) break
      }
      look.retained.push(...(await job.transaction((trx) => sweepExpiredBackups(trx, context, now))))
      return { ...look }
    },
  }
}

/**
 * Looks every `intervalMs` whether the schedule is due and starts its job when this instance claims it (several
 * instances sharing a store start it once). Answers how to stop.
 */
export function scheduleLooks(context: PluginContext, options: ResolvedPolicyOptions): () => void {
  const look = async () => {
    try {
      await context.transaction(async (trx) => {
        if (await claimScheduleLook(trx, options.scheduleIntervalMs, options.now()))
          await startScheduleLook(trx, context)
      })
    } catch (error) {
      context.log.warn({ err: error }, 'could not start the backup schedule')
    }
  }
  const timer = setInterval(() => void look(), options.scheduleIntervalMs)
  // The schedule is not a reason to keep the process alive.
  timer.unref?.()
  void look()
  return () => clearInterval(timer)
}
