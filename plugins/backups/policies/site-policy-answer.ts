// `GET /sites/{id}/backup-policy`'s answer: the effective policy with where each member comes from, staff's own
// for the site, the target in use, and where the site stands (last good backup, next due, overdue).

import { type Db, enumOf, type Quotas, type Static, t } from '../../../core/index.ts'
import type { SiteRef } from '../../sites/contract.ts'
import { BackupPolicy, scheduleKinds } from '../contract.ts'
import type { BackupPoliciesTable } from '../migrations.ts'
import { targetOfSite } from '../repository.ts'
import { policyMembers } from './backup-plan-setting.ts'
import { backupsSince, scheduleStart } from './backups-since.ts'
import { effectivePolicy, planBackupsFor, policySources } from './effective-policy.ts'
import type { ResolvedPolicyOptions } from './policy-options.ts'
import { backupStandings, findOwnPolicy, scheduledAttemptsSince } from './policy-rows.ts'
import { policyStanding } from './policy-standing.ts'
import { schedulePeriodMs } from './schedule-slots.ts'

const sourceSchema = enumOf(policySources, {
  description:
    'Where it comes from: `site` (staff set it for this site), `plan` (the customer’s plans’ `backups`), `default` (neither: the installation’s default).',
})

const member = <S extends ReturnType<typeof t.Integer> | ReturnType<typeof enumOf>>(
  schema: S,
  what: string,
) => t.Object({ value: schema, source: sourceSchema }, { description: what })

/** Staff's policy for one site: each member null takes the plan's. */
export const OwnBackupPolicy = t.Object(
  {
    schedule: t.Union([enumOf(scheduleKinds), t.Null()]),
    keepDaily: t.Union([BackupPolicy.properties.keepDaily, t.Null()]),
    keepWeekly: t.Union([BackupPolicy.properties.keepWeekly, t.Null()]),
    keepMonthly: t.Union([BackupPolicy.properties.keepMonthly, t.Null()]),
    targetId: t.Union([t.String(), t.Null()], {
      description: 'The target the site backs up to (`bkt_…`); null: the default target.',
    }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  {
    $id: 'OwnBackupPolicy',
    description: 'Staff’s policy for the site over its plan’s; a null member takes the plan’s.',
  },
)

/** The answer. */
export const SiteBackupPolicy = t.Object(
  {
    siteId: t.String({ description: 'The site, `site_…`.' }),
    schedule: member(BackupPolicy.properties.schedule, 'When the site is backed up by the schedule.'),
    keepDaily: member(BackupPolicy.properties.keepDaily, 'Days whose last backup retention keeps.'),
    keepWeekly: member(BackupPolicy.properties.keepWeekly, 'ISO weeks whose last backup retention keeps.'),
    keepMonthly: member(BackupPolicy.properties.keepMonthly, 'Months whose last backup retention keeps.'),
    own: t.Union([OwnBackupPolicy, t.Null()], {
      description: 'What staff set for this site (`PUT /sites/{id}/backup-policy`); null: nothing.',
    }),
    target: t.Union(
      [
        t.Object({
          id: t.String({ description: '`bkt_…`' }),
          name: t.String(),
          kind: t.String({ description: '`local`, `sftp`, `rest` or `s3`.' }),
          source: enumOf(['site', 'default'] as const, {
            description:
              '`site`: staff chose it for this site; `default`: the installation’s default target.',
          }),
        }),
        t.Null(),
      ],
      {
        description: 'The target the site’s backups go to; null when there is none (no backup can be taken).',
      },
    ),
    lastGoodBackupAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When the site’s last `completed` backup finished; null when it has none.',
    }),
    nextDueAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description:
        'When its next scheduled backup is due (a time in the night window its id picks); a time past while that backup waits to start; null when `schedule` is `off`.',
    }),
    overdue: t.Boolean({
      description:
        'Whether its last good backup (without one, its creation) is older than its schedule’s period (a day, a week) and six hours’ grace.',
    }),
  },
  { $id: 'SiteBackupPolicy' },
)
export type SiteBackupPolicy = Static<typeof SiteBackupPolicy>

/** The answer for `site`, read through `db` (a change's `trx` inside one). */
export async function siteBackupPolicy(
  db: Db,
  quotas: Pick<Quotas, 'settingsOf'>,
  site: SiteRef,
  options: ResolvedPolicyOptions,
): Promise<SiteBackupPolicy> {
  const now = options.now()
  const own = await findOwnPolicy(db, site.id)
  const { policy, sources } = effectivePolicy(own, await planBackupsFor(db, quotas, site.customerId))
  const target = await targetOfSite(db, site.id)
  const standing = (await backupStandings(db, [site.id])).get(site.id)
  const since = new Date(now.getTime() - schedulePeriodMs.weekly).toISOString()
  const attempts = (await scheduledAttemptsSince(db, [site.id], since)).get(site.id) ?? []
  const where = policyStanding(
    {
      schedule: policy.schedule,
      site: { id: site.id, createdAt: scheduleStart(site.createdAt, await backupsSince(db)) },
      lastGoodAt: standing?.lastGoodAt ?? null,
      attempts,
    },
    options,
    now,
  )
  const members = Object.fromEntries(
    policyMembers.map((name) => [name, { value: policy[name], source: sources[name] }]),
  ) as Pick<SiteBackupPolicy, (typeof policyMembers)[number]>
  return {
    siteId: site.id,
    ...members,
    own: own ? toOwnPolicy(own) : null,
    target: target
      ? {
          id: target.id,
          name: target.name,
          kind: target.kind,
          source: own?.target_id === target.id ? 'site' : 'default',
        }
      : null,
    lastGoodBackupAt: where.lastGoodBackupAt,
    nextDueAt: where.nextDueAt,
    overdue: where.overdue,
  }
}

/** Staff's row as the API shows it. */
export function toOwnPolicy(row: BackupPoliciesTable): Static<typeof OwnBackupPolicy> {
  return {
    schedule: row.schedule as Static<typeof OwnBackupPolicy>['schedule'],
    keepDaily: row.keep_daily,
    keepWeekly: row.keep_weekly,
    keepMonthly: row.keep_monthly,
    targetId: row.target_id,
    updatedAt: row.updated_at,
  }
}
