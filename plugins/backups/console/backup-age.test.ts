import { expect, test } from 'bun:test'
import { ageText, lastGoodBackup } from './backup-age.ts'

const backup = (status: string, finishedAt: string | null, createdAt = '2026-11-01T00:00:00Z') => ({
  status,
  finishedAt,
  createdAt,
})

test('the last good backup is the newest completed one, whatever the order and however newer ones ended', () => {
  const older = backup('completed', '2026-11-02T00:00:00Z')
  const newer = backup('completed', '2026-11-03T00:00:00Z')
  const failed = backup('failed', '2026-11-04T00:00:00Z')
  const running = backup('running', null, '2026-11-05T00:00:00Z')
  expect(lastGoodBackup([running, failed, older, newer])).toBe(newer)
  expect(lastGoodBackup([newer, older])).toBe(newer)
  expect(lastGoodBackup([failed, running])).toBeNull()
  expect(lastGoodBackup([])).toBeNull()
})

test('an age is said in its largest whole unit', () => {
  const now = Date.parse('2026-11-10T12:00:00Z')
  expect(ageText('2026-11-10T11:59:30Z', now)).toBe('just now')
  expect(ageText('2026-11-10T11:59:00Z', now)).toBe('1 minute ago')
  expect(ageText('2026-11-10T09:10:00Z', now)).toBe('2 hours ago')
  expect(ageText('2026-11-09T11:00:00Z', now)).toBe('1 day ago')
  expect(ageText('2026-11-01T12:00:00Z', now)).toBe('9 days ago')
  // A clock a little behind the panel's does not say "in the future".
  expect(ageText('2026-11-10T12:00:05Z', now)).toBe('just now')
})
