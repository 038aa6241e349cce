// How old a site's last good backup is, in words, and which backup that is: the newest `completed` one (a failed or
// running backup restores nothing, so it never counts).

/** The newest completed backup of `backups`, or null when none completed. */
export function lastGoodBackup<B extends { status: string; finishedAt: string | null; createdAt: string }>(
  backups: readonly B[],
): B | null {
  let newest: B | null = null
  for (const backup of backups) {
    if (backup.status !== 'completed') continue
    if (!newest || timeOf(backup) > timeOf(newest)) newest = backup
  }
  return newest
}

const timeOf = (backup: { finishedAt: string | null; createdAt: string }) =>
  Date.parse(backup.finishedAt ?? backup.createdAt)

const units = [
  { ms: 86_400_000, one: 'day', many: 'days' },
  { ms: 3_600_000, one: 'hour', many: 'hours' },
  { ms: 60_000, one: 'minute', many: 'minutes' },
] as const

/** `iso`'s age at `now` in its largest whole unit: "3 hours ago", "1 day ago", "just now" under a minute. */
export function ageText(iso: string, now: number = Date.now()): string {
  const age = Math.max(0, now - Date.parse(iso))
  for (const unit of units) {
    const count = Math.floor(age / unit.ms)
    if (count >= 1) return `${count} ${count === 1 ? unit.one : unit.many} ago`
  }
  return 'just now'
}
