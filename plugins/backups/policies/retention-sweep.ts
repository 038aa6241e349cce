// Once a day, retention for sites no backup ended for lately: a failed or `pre-restore` backup past its days is
// forgotten even when the site's schedule is `off` and nobody takes a backup of it (retention otherwise runs only
// after a backup ends).

import type { Db, PluginContext, Trx } from '../../../core/index.ts'
import type { BackupTables } from '../migrations.ts'
import { effectivePolicy, planBackupsCache } from './effective-policy.ts'
import { claimScheduleLook } from './migrations.ts'
import { ownPoliciesOf } from './policy-rows.ts'
import { failedKeptDays, forgottenBackups, preRestoreKeptDays } from './retention.ts'
import { startRetention } from './retention-job.ts'

const dayMs = 86_400_000

/** The sites with a listed failed or `pre-restore` backup past the days retention keeps it whatever the policy. */
async function sitesWithExpired(db: Db, now: Date): Promise<string[]> {
  const failedBefore = new Date(now.getTime() - failedKeptDays * dayMs).toISOString()
  const preRestoreBefore = new Date(now.getTime() - preRestoreKeptDays * dayMs).toISOString()
  const rows = await db
    .withTables<BackupTables>()
    .selectFrom('backups')
    .select('site_id')
    .distinct()
    .where('forgotten_at', 'is', null)
    .where((w) =>
      w.or([
        w.and([w('status', '=', 'failed'), w('created_at', '<', failedBefore)]),
        w.and([w('reason', '=', 'pre-restore'), w('created_at', '<', preRestoreBefore)]),
      ]),
    )
    .execute()
  return rows.map((row) => row.site_id)
}

/**
 * In `trx`, once a day (claimed like the schedule's look, so one instance does it): starts retention for each site
 * with a failed or `pre-restore` backup its policy no longer keeps. Answers the sites it started it for.
 */
export async function sweepExpiredBackups(trx: Trx, context: PluginContext, now: Date): Promise<string[]> {
  if (!(await claimScheduleLook(trx, dayMs, now, 'retention'))) return []
  const siteIds = await sitesWithExpired(trx, now)
  if (siteIds.length === 0) return []
  const own = await ownPoliciesOf(trx, siteIds)
  const planOf = planBackupsCache(trx, context.quotas)
  const rows = await trx
    .withTables<BackupTables>()
    .selectFrom('backups')
    .select(['id', 'site_id', 'customer_id', 'status', 'reason', 'created_at', 'finished_at'])
    .where('site_id', 'in', siteIds)
    .where('forgotten_at', 'is', null)
    .execute()
  const started: string[] = []
  for (const siteId of siteIds) {
    const listed = rows.filter((row) => row.site_id === siteId)
    const customerId = listed[0]?.customer_id
    if (!customerId) continue
    const { policy } = effectivePolicy(own.get(siteId), await planOf(customerId))
    const candidates = listed.map((row) => ({
      id: row.id,
      status: row.status,
      reason: row.reason,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
    }))
    if (forgottenBackups(candidates, policy, now).length === 0) continue
    await startRetention(trx, context, { id: siteId, customerId })
    started.push(siteId)
  }
  return started
}
