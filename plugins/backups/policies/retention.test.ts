// Retention keeps exactly what the policy says: the newest completed backup of each of the last N days, ISO weeks
// and months (UTC) that have one, as restic's `forget --keep-*` would, plus what is kept whatever the policy.

import { describe, expect, test } from 'bun:test'
import { forgottenBackups, isoWeekOf, type RetentionCandidate, retainedBackups } from './retention.ts'

let sequence = 0
/** A backup taken at `at` (UTC), completed and scheduled unless said otherwise. */
function backup(at: string, extra: Partial<RetentionCandidate> = {}): RetentionCandidate {
  sequence++
  return {
    id: `bkp_${String(sequence).padStart(6, '0')}`,
    status: 'completed',
    reason: 'scheduled',
    createdAt: new Date(at).toISOString(),
    finishedAt: new Date(Date.parse(at) + 60_000).toISOString(),
    ...extra,
  }
}

/** One scheduled backup a day at 02:00 UTC from `first` for `days` days. */
function nightly(first: string, days: number): RetentionCandidate[] {
  return Array.from({ length: days }, (_, day) =>
    backup(new Date(Date.parse(`${first}T02:00:00Z`) + day * 86_400_000).toISOString()),
  )
}

const keptDays = (list: readonly RetentionCandidate[]) => list.map((item) => item.createdAt.slice(0, 10))
const none = { keepDaily: 0, keepWeekly: 0, keepMonthly: 0 }

describe('retainedBackups', () => {
  test('keep-daily keeps the newest backup of each of the last N days, and only that', () => {
    const list = nightly('2026-03-01', 20)
    const extra = backup('2026-03-20T15:00:00Z', { reason: 'manual' })
    const kept = retainedBackups(
      [...list, extra],
      { ...none, keepDaily: 7 },
      new Date('2026-03-21T00:00:00Z'),
    )
    expect(kept.map((item) => item.id)).toEqual([...list.slice(13, 19), extra].map((item) => item.id))
    expect(keptDays(kept)).toEqual([
      '2026-03-14',
      '2026-03-15',
      '2026-03-16',
      '2026-03-17',
      '2026-03-18',
      '2026-03-19',
      '2026-03-20',
    ])
  })

  test('days without a backup are not counted: the last N days that have one', () => {
    const list = [
      backup('2026-03-01T02:00:00Z'),
      backup('2026-03-02T02:00:00Z'),
      backup('2026-03-05T02:00:00Z'),
      backup('2026-03-09T02:00:00Z'),
    ]
    const kept = retainedBackups(list, { ...none, keepDaily: 3 }, new Date('2026-03-10T00:00:00Z'))
    expect(keptDays(kept)).toEqual(['2026-03-02', '2026-03-05', '2026-03-09'])
  })

  test('a day is a UTC day: 23:59 and 00:00 the next day fall in two days', () => {
    const late = backup('2026-03-01T23:59:00Z')
    const early = backup('2026-03-02T00:00:00Z')
    const before = backup('2026-03-01T12:00:00Z')
    const kept = retainedBackups(
      [before, late, early],
      { ...none, keepDaily: 2 },
      new Date('2026-03-03T00:00:00Z'),
    )
    expect(kept).toEqual([late, early])
  })

  test('keep-weekly keeps the newest of each ISO week, weeks running Monday to Sunday across a new year', () => {
    // 2026-12-28 is a Monday; 2027-01-03 a Sunday of the same ISO week (2026-W53); 2027-01-04 opens 2027-W01.
    const monday = backup('2026-12-28T02:00:00Z')
    const friday = backup('2027-01-01T02:00:00Z')
    const sunday = backup('2027-01-03T23:30:00Z')
    const nextMonday = backup('2027-01-04T00:10:00Z')
    const weekBefore = backup('2026-12-27T02:00:00Z')
    const twoBefore = backup('2026-12-20T02:00:00Z')
    const list = [twoBefore, weekBefore, monday, friday, sunday, nextMonday]
    const kept = retainedBackups(list, { ...none, keepWeekly: 3 }, new Date('2027-01-05T00:00:00Z'))
    expect(kept).toEqual([weekBefore, sunday, nextMonday])
    expect(
      [monday, sunday, nextMonday, weekBefore].map((item) => isoWeekOf(new Date(item.createdAt))),
    ).toEqual(['2026-W53', '2026-W53', '2027-W01', '2026-W52'])
  })

  test('keep-monthly keeps the newest of each UTC month, the last day of a month and the first of the next apart', () => {
    const endJanuary = backup('2026-01-31T23:59:59Z')
    const startFebruary = backup('2026-02-01T00:00:00Z')
    const endFebruary = backup('2026-02-28T02:00:00Z')
    const december = backup('2025-12-15T02:00:00Z')
    const november = backup('2025-11-15T02:00:00Z')
    const list = [november, december, endJanuary, startFebruary, endFebruary]
    const kept = retainedBackups(list, { ...none, keepMonthly: 3 }, new Date('2026-03-01T00:00:00Z'))
    expect(kept).toEqual([december, endJanuary, endFebruary])
  })

  // restic 0.14's `forget --keep-daily 7 --keep-weekly 4 --keep-monthly 3` keeps the same eleven of such snapshots.
  test('rules are counted each over every backup: one kept by keep-daily still counts for its week and month', () => {
    const list = nightly('2026-01-01', 90) // 2026-01-01 to 2026-03-31
    const now = new Date('2026-04-01T00:00:00Z')
    const kept = retainedBackups(list, { keepDaily: 7, keepWeekly: 4, keepMonthly: 3 }, now)
    expect(keptDays(kept)).toEqual([
      // Months: the last of January, February, March (March's is also the newest day).
      '2026-01-31',
      '2026-02-28',
      // Weeks: the Sundays 03-15 and 03-22; the weeks of Mondays 03-23 and 03-30 end with days kept already.
      '2026-03-15',
      '2026-03-22',
      // Days: the last seven.
      '2026-03-25',
      '2026-03-26',
      '2026-03-27',
      '2026-03-28',
      '2026-03-29',
      '2026-03-30',
      '2026-03-31',
    ])
    expect(forgottenBackups(list, { keepDaily: 7, keepWeekly: 4, keepMonthly: 3 }, now)).toHaveLength(90 - 11)
  })

  test('only completed backups are kept by the policy: a failed one takes no day', () => {
    const good = backup('2026-03-02T02:00:00Z')
    const failedLater = backup('2026-03-02T05:00:00Z', {
      status: 'failed',
      finishedAt: '2026-03-02T05:01:00Z',
    })
    const older = backup('2026-03-01T02:00:00Z')
    const kept = retainedBackups(
      [older, good, failedLater],
      { ...none, keepDaily: 1 },
      new Date('2026-03-30T00:00:00Z'),
    )
    // 28 days on, the failure is no longer kept either: only the day's completed backup.
    expect(kept).toEqual([good])
  })

  test('a failed backup stays listed for 14 days after it ended, then goes', () => {
    const failed = backup('2026-03-01T02:00:00Z', { status: 'failed', finishedAt: '2026-03-01T02:10:00Z' })
    const good = backup('2026-03-01T01:00:00Z')
    expect(retainedBackups([good, failed], none, new Date('2026-03-15T02:09:00Z'))).toEqual([good, failed])
    expect(retainedBackups([good, failed], none, new Date('2026-03-15T02:11:00Z'))).toEqual([good])
  })

  test('running backups are never forgotten', () => {
    const running = backup('2026-01-01T02:00:00Z', { status: 'running', finishedAt: null })
    expect(retainedBackups([running], none, new Date('2027-01-01T00:00:00Z'))).toEqual([running])
  })

  test('a pre-restore backup is kept 14 days whatever the policy, then weighed like any other', () => {
    const list = nightly('2026-03-01', 5)
    const newest = list[4] as RetentionCandidate
    const preRestore = backup('2026-03-03T10:00:00Z', { reason: 'pre-restore' })
    const all = [...list, preRestore]
    const policy = { ...none, keepDaily: 1 }
    expect(retainedBackups(all, policy, new Date('2026-03-17T09:59:00Z'))).toEqual([newest, preRestore])
    expect(retainedBackups(all, policy, new Date('2026-03-17T10:01:00Z'))).toEqual([newest])
  })

  test('a pre-restore backup takes no day from the others: the backup its restore restored stays kept', () => {
    // A restore at 11:00 of the day's 02:00 backup took its pre-restore backup at 11:00: both stay.
    const restored = backup('2026-03-05T02:00:00Z')
    const preRestore = backup('2026-03-05T11:00:00Z', { reason: 'pre-restore' })
    const policy = { ...none, keepDaily: 1 }
    expect(retainedBackups([restored, preRestore], policy, new Date('2026-03-05T12:00:00Z'))).toEqual([
      restored,
      preRestore,
    ])
  })

  test('a policy that keeps nothing still keeps the newest completed backup', () => {
    const list = nightly('2026-03-01', 3)
    const newest = list[2] as RetentionCandidate
    const failed = backup('2026-03-04T02:00:00Z', { status: 'failed', finishedAt: '2026-03-04T02:05:00Z' })
    expect(retainedBackups([...list, failed], none, new Date('2026-04-01T00:00:00Z'))).toEqual([newest])
  })

  test('a backup someone asked for is kept a week whatever the policy: a second one the same day does not push it out', () => {
    const nightlyOne = backup('2026-03-10T02:00:00Z')
    const beforeChange = backup('2026-03-10T09:00:00Z', { reason: 'manual' })
    const afterChange = backup('2026-03-10T15:00:00Z', { reason: 'manual' })
    const policy = { ...none, keepDaily: 7 }
    expect(
      retainedBackups([nightlyOne, beforeChange, afterChange], policy, new Date('2026-03-11T00:00:00Z')),
    ).toEqual([beforeChange, afterChange])
    // A week on, only what the policy keeps is left.
    expect(
      retainedBackups([nightlyOne, beforeChange, afterChange], policy, new Date('2026-03-17T10:00:00Z')),
    ).toEqual([afterChange])
  })

  test('over its backupMB, a customer keeps beyond the policy only each site’s newest pre-restore backup', () => {
    const nightlyOne = backup('2026-03-10T02:00:00Z')
    const olderUndo = backup('2026-03-10T08:00:00Z', { reason: 'pre-restore' })
    const manual = backup('2026-03-10T09:00:00Z', { reason: 'manual' })
    const newestUndo = backup('2026-03-10T10:00:00Z', { reason: 'pre-restore' })
    const all = [nightlyOne, olderUndo, manual, newestUndo]
    const policy = { ...none, keepDaily: 7 }
    const now = new Date('2026-03-11T00:00:00Z')
    expect(retainedBackups(all, policy, now)).toEqual([olderUndo, manual, newestUndo])
    expect(retainedBackups(all, policy, now, { overQuota: true })).toEqual([manual, newestUndo])
  })

  test('of two backups at the same second, the later id is the newer', () => {
    const first = backup('2026-03-01T02:00:00Z')
    const second = backup('2026-03-01T02:00:00Z', { reason: 'manual' })
    expect(
      retainedBackups([second, first], { ...none, keepDaily: 1 }, new Date('2026-03-02T00:00:00Z')),
    ).toEqual([second])
  })
})

describe('isoWeekOf', () => {
  test.each([
    ['2026-01-01T00:00:00Z', '2026-W01'], // a Thursday: week 1
    ['2027-01-01T00:00:00Z', '2026-W53'], // a Friday: the old year's last week
    ['2024-12-30T00:00:00Z', '2025-W01'], // a Monday whose Thursday is in the new year
    ['2021-01-03T23:59:59Z', '2020-W53'],
    ['2021-01-04T00:00:00Z', '2021-W01'],
  ])('%s is in %s', (at, week) => {
    expect(isoWeekOf(new Date(at))).toBe(week)
  })
})
