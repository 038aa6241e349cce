// The plan setting `backups`: the schedule and retention a plan gives its sites, how several plans held at once
// combine, and the installation's default where no plan sets a member.

import type { PlanSettingDefinition } from '../../../core/index.ts'
import { t } from '../../../core/index.ts'
import { type BackupPolicy, BackupPolicy as BackupPolicySchema, type ScheduleKind } from '../contract.ts'

/**
 * The policy of a site whose plans set nothing (or set only part): a backup each night, kept a week day by day,
 * a month week by week, and a quarter month by month; about fourteen snapshots at any time.
 */
export const defaultBackupPolicy: BackupPolicy = Object.freeze({
  schedule: 'daily',
  keepDaily: 7,
  keepWeekly: 4,
  keepMonthly: 3,
})

/** The members of a policy, in the order the API shows them. */
export const policyMembers = ['schedule', 'keepDaily', 'keepWeekly', 'keepMonthly'] as const
export type PolicyMember = (typeof policyMembers)[number]

/** What a plan may set of a policy: any of its members. */
export type PlanBackups = Partial<BackupPolicy>

/** How often each schedule backs up, most frequent last: several plans take the most frequent. */
const scheduleRank: Readonly<Record<ScheduleKind, number>> = { off: 0, weekly: 1, daily: 2 }

/** The plan setting `backups` (the backups plugin's `planSettings`). */
export const backupPlanSetting: PlanSettingDefinition = {
  name: 'backups',
  description:
    'Scheduled backups of the plan’s sites and what retention keeps: `schedule` (`daily`, `weekly`, `off`), `keepDaily`, `keepWeekly`, `keepMonthly`. A member left out takes the installation’s default (daily; 7, 4 and 3). Several plans held at once give the most frequent schedule and the largest of each keep; staff may set a single site’s own (`PUT /sites/{id}/backup-policy`).',
  schema: t.Object(
    {
      schedule: t.Optional(BackupPolicySchema.properties.schedule),
      keepDaily: t.Optional(BackupPolicySchema.properties.keepDaily),
      keepWeekly: t.Optional(BackupPolicySchema.properties.keepWeekly),
      keepMonthly: t.Optional(BackupPolicySchema.properties.keepMonthly),
    },
    { $id: 'PlanBackups' },
  ),
  combine: (values) => combinePlanBackups(values.map(planBackupsOf)),
}

/** Several plans' `backups` as one: the most frequent schedule, the largest of each keep; members none sets left out. */
export function combinePlanBackups(list: readonly PlanBackups[]): PlanBackups {
  const combined: { -readonly [K in keyof BackupPolicy]?: BackupPolicy[K] } = {}
  for (const item of list) {
    if (
      item.schedule !== undefined &&
      (combined.schedule === undefined || scheduleRank[item.schedule] > scheduleRank[combined.schedule])
    )
      combined.schedule = item.schedule
    for (const member of ['keepDaily', 'keepWeekly', 'keepMonthly'] as const) {
      const value = item[member]
      if (value !== undefined && (combined[member] === undefined || value > (combined[member] ?? 0)))
        combined[member] = value
    }
  }
  return combined
}

/** The members of a stored `backups` setting that are what the schema says (a plan written before a change). */
export function planBackupsOf(value: unknown): PlanBackups {
  if (typeof value !== 'object' || value === null) return {}
  const given = value as Record<string, unknown>
  const plan: { -readonly [K in keyof BackupPolicy]?: BackupPolicy[K] } = {}
  if (typeof given.schedule === 'string' && given.schedule in scheduleRank)
    plan.schedule = given.schedule as ScheduleKind
  for (const member of ['keepDaily', 'keepWeekly', 'keepMonthly'] as const) {
    const keep = given[member]
    if (typeof keep === 'number' && Number.isInteger(keep) && keep >= 0) plan[member] = keep
  }
  return plan
}
