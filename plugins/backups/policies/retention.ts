// Retention as restic's `forget --keep-daily/--keep-weekly/--keep-monthly` decides it, in UTC, over a site's listed
// backups: which of them a policy keeps. The rest are forgotten (their snapshots removed, their rows unlisted).

import type { BackupPolicy } from '../contract.ts'

/** A backup as retention weighs it. */
export interface RetentionCandidate {
  readonly id: string
  readonly status: string
  readonly reason: string
  /** When it was taken: its snapshot's time. */
  readonly createdAt: string
  readonly finishedAt: string | null
}

const dayMs = 86_400_000

/** How long a `pre-restore` backup is kept whatever the policy: the days in which a restore may be undone. */
export const preRestoreKeptDays = 14
/**
 * How long a backup someone asked for (`manual`) is kept whatever the policy: the backup a customer took before a
 * change must not go because they took another the same day (keep-daily keeps one a day). The customer's `backupMB`
 * bounds what they keep this way.
 */
export const manualKeptDays = 7
/** How long a failed backup stays listed after it ended, so its reason is seen, before retention removes it. */
export const failedKeptDays = 14

/** What retention weighs besides the policy: whether the site's customer uses more than its `backupMB`. */
export interface RetentionStanding {
  readonly overQuota?: boolean
}

/** The keep rules of a policy, each naming the bucket (a day, an ISO week, a month) a backup falls in. */
const rules = [
  { member: 'keepDaily', bucket: (at: Date) => at.toISOString().slice(0, 10) },
  { member: 'keepWeekly', bucket: isoWeekOf },
  { member: 'keepMonthly', bucket: (at: Date) => at.toISOString().slice(0, 7) },
] as const

/**
 * The backups `policy` keeps of `backups` at `now`, in their given order. Of `completed` backups but pre-restore
 * ones, as restic keeps snapshots: for each rule, walking from the newest, the newest backup of each of the last `keep…` days (ISO
 * weeks, months: UTC) that have one; a backup kept by any rule is kept, and the newest completed backup is always
 * kept (a policy of zeros never leaves a site without one). Besides: `running` backups; `pre-restore` ones for
 * {@link preRestoreKeptDays} days after they were taken; `manual` ones for {@link manualKeptDays} days (while the
 * customer is over its `backupMB`, only the newest pre-restore one of these); `failed` ones for {@link failedKeptDays} days after they
 * ended.
 */
export function retainedBackups<B extends RetentionCandidate>(
  backups: readonly B[],
  policy: Pick<BackupPolicy, 'keepDaily' | 'keepWeekly' | 'keepMonthly'>,
  now: Date,
  standing: RetentionStanding = {},
): B[] {
  const kept = new Set<string>()
  const completed = backups
    .filter((backup) => backup.status === 'completed')
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? 1 : -1))
  // A pre-restore backup has its own keep (below): among the rules' it would, as the newest of its day, push out
  // the very backup its restore was restoring.
  const weighed = completed.filter((backup) => backup.reason !== 'pre-restore')
  for (const rule of rules) {
    let left = policy[rule.member]
    let last: string | null = null
    for (const backup of weighed) {
      if (left <= 0) break
      const bucket = rule.bucket(new Date(backup.createdAt))
      if (bucket === last) continue
      kept.add(backup.id)
      last = bucket
      left--
    }
  }
  const newest = completed[0]
  if (newest) kept.add(newest.id)
  // Over its `backupMB`, a customer keeps of the backups beyond its policy only the newest pre-restore one of each
  // site (its last restore can still be undone): restores, never refused for the quota, cannot pile up storage.
  const newestOf = (reason: string) => completed.find((backup) => backup.reason === reason)?.id
  const beyondPolicy = (backup: B, reason: string, days: number) =>
    backup.reason === reason &&
    backup.status === 'completed' &&
    ageDays(backup.createdAt, now) < days &&
    (!standing.overQuota || (reason === 'pre-restore' && backup.id === newestOf(reason)))
  for (const backup of backups) {
    if (backup.status === 'running') kept.add(backup.id)
    if (beyondPolicy(backup, 'pre-restore', preRestoreKeptDays)) kept.add(backup.id)
    if (beyondPolicy(backup, 'manual', manualKeptDays)) kept.add(backup.id)
    if (backup.status === 'failed' && ageDays(backup.finishedAt ?? backup.createdAt, now) < failedKeptDays)
      kept.add(backup.id)
  }
  return backups.filter((backup) => kept.has(backup.id))
}

/** The backups of `backups` that `policy` does not keep at `now`. */
export function forgottenBackups<B extends RetentionCandidate>(
  backups: readonly B[],
  policy: Pick<BackupPolicy, 'keepDaily' | 'keepWeekly' | 'keepMonthly'>,
  now: Date,
  standing: RetentionStanding = {},
): B[] {
  const kept = new Set(retainedBackups(backups, policy, now, standing).map((backup) => backup.id))
  return backups.filter((backup) => !kept.has(backup.id))
}

/** Days from `at` to `now`. */
const ageDays = (at: string, now: Date): number => (now.getTime() - Date.parse(at)) / dayMs

/** The ISO 8601 week of a time, in UTC: `2026-W53` (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeekOf(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
  const weekday = day.getUTCDay() || 7
  // The Thursday of the same week decides its year.
  day.setUTCDate(day.getUTCDate() + 4 - weekday)
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1)
  const week = Math.ceil(((day.getTime() - yearStart) / dayMs + 1) / 7)
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`
}
