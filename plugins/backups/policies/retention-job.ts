// Retention applied (`backup.retain`): after each backup of a site ends (`backup.completed`, `backup.failed`), the
// site's listed backups its policy no longer keeps are forgotten (their snapshots removed, their rows unlisted).

import type { JobDefinition, PluginContext, Trx } from '../../../core/index.ts'
import { siteDirectory } from '../../sites/contract.ts'
import { forgetBackups } from '../forget-backups.ts'
import { effectivePolicy, planBackupsFor } from './effective-policy.ts'
import type { ResolvedPolicyOptions } from './policy-options.ts'
import { findOwnPolicy, listedBackupsOf } from './policy-rows.ts'
import { forgottenBackups } from './retention.ts'

/** The job kind; its subject is the site. */
export const retainJobKind = 'backup.retain'

/** Starts retention of a site's backups in `trx`. */
export function startRetention(
  trx: Trx,
  context: Pick<PluginContext, 'enqueueJob'>,
  site: { readonly id: string; readonly customerId: string },
): Promise<string> {
  return context.enqueueJob(trx, {
    kind: retainJobKind,
    customerId: site.customerId,
    subject: { type: 'site', id: site.id },
  })
}

/** Starts retention after each backup that ended: the site's backups are weighed again with the new one. */
export function retainAfterBackups(context: PluginContext): void {
  for (const kind of ['backup.completed', 'backup.failed'])
    context.onEvent(kind, async (trx, event) => {
      const { siteId, customerId } = event.data as { siteId?: unknown; customerId?: unknown }
      if (typeof siteId === 'string' && typeof customerId === 'string')
        await startRetention(trx, context, { id: siteId, customerId })
    })
}

/** The retention job. */
export function retentionJob(
  context: PluginContext,
  options: ResolvedPolicyOptions,
  lane: JobDefinition['lane'],
): JobDefinition {
  const sites = context.use(siteDirectory)
  const everyone = { kind: 'all' } as const

  return {
    kind: retainJobKind,
    description:
      'Retention of a site’s backups, after each backup of it ends: forgets the listed backups its policy no longer keeps (of completed ones, the newest of each of the last `keepDaily` days, `keepWeekly` ISO weeks and `keepMonthly` months, UTC, and always the newest; `pre-restore` backups 14 days at least; failed ones 14 days after they ended). Their snapshots are removed from the repository (`backup.forget` in the audit log).',
    // A repository locked by a backup that runs is tried again later.
    maxAttempts: 3,
    // A prune of a large repository on a remote target takes a while.
    timeoutMs: 2 * 60 * 60_000,
    ...(lane ? { lane } : {}),
    async run(job) {
      const site = await sites.find(context.db, everyone, job.subject.id)
      // A site deleted since: its deletion removes its backups.
      if (!site) return { kept: 0, forgotten: [] }
      const own = await findOwnPolicy(context.db, site.id)
      const { policy } = effectivePolicy(
        own,
        await planBackupsFor(context.db, context.quotas, site.customerId),
      )
      const listed = (await listedBackupsOf(context.db, site.id)).map((row) => ({
        id: row.id,
        status: row.status,
        reason: row.reason,
        createdAt: row.created_at,
        finishedAt: row.finished_at,
      }))
      const quota = (await context.quotas.of(context.db, site.customerId)).limits.backupMB
      const overQuota = quota?.limit != null && quota.used > quota.limit
      const expired = forgottenBackups(listed, policy, options.now(), { overQuota })
      const { forgotten } = await forgetBackups(
        context,
        job,
        site.id,
        expired.map((backup) => backup.id),
      )
      return { kept: listed.length - expired.length, forgotten: [...forgotten] }
    },
  }
}
