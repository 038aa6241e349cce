// Cron schedules: the five fields with lists, ranges, steps and names, the aliases, cron's day-of-month or
// day-of-week rule, and the next times computed in UTC.

import { describe, expect, test } from 'bun:test'
import { nextRuns, parseSchedule, scheduleProblem } from './schedule.ts'

const next = (schedule: string, after: string, count = 3) =>
  nextRuns(parseSchedule(schedule), new Date(after), count).map((date) => date.toISOString())

describe('cron schedules', () => {
  test('steps, ranges, lists and names', () => {
    expect(next('*/15 * * * *', '2026-01-01T00:07:30Z')).toEqual([
      '2026-01-01T00:15:00.000Z',
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T00:45:00.000Z',
    ])
    expect(next('0 9-17/4 * * *', '2026-01-01T10:00:00Z')).toEqual([
      '2026-01-01T13:00:00.000Z',
      '2026-01-01T17:00:00.000Z',
      '2026-01-02T09:00:00.000Z',
    ])
    // 2026-01-02 is a Friday.
    expect(next('30 2 * * MON,fri', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-02T02:30:00.000Z',
      '2026-01-05T02:30:00.000Z',
    ])
    expect(next('0 0 1 jan-mar/2 *', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ])
    expect(next('5/20 * * * *', '2026-01-01T00:00:00Z')).toEqual([
      '2026-01-01T00:05:00.000Z',
      '2026-01-01T00:25:00.000Z',
      '2026-01-01T00:45:00.000Z',
    ])
  })

  test('aliases; 7 is Sunday; day of month or day of week when both are restricted', () => {
    expect(next('@hourly', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-01T01:00:00.000Z'])
    expect(next('@daily', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-02T00:00:00.000Z'])
    expect(next('@weekly', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-04T00:00:00.000Z'])
    expect(next('0 0 * * 7', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-04T00:00:00.000Z'])
    // The 13th or any Friday.
    expect(next('0 0 13 * fri', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
      '2026-01-13T00:00:00.000Z',
    ])
    expect(next('0 0 29 2 *', '2026-01-01T00:00:00Z', 1)).toEqual(['2028-02-29T00:00:00.000Z'])
  })

  test('what is refused, with the reason', () => {
    expect(scheduleProblem('* * * *')).toContain('five fields')
    expect(scheduleProblem('60 * * * *')).toContain('outside 0–59')
    expect(scheduleProblem('* * 0 * *')).toContain('outside 1–31')
    expect(scheduleProblem('*/0 * * * *')).toContain('step')
    expect(scheduleProblem('10-5 * * * *')).toContain('backwards')
    expect(scheduleProblem('@reboot')).toContain('alias')
    expect(scheduleProblem('0 0 31 4 *')).toContain('never')
    expect(scheduleProblem('* * * * * $(id)')).toContain('only digits')
    expect(scheduleProblem('1,,2 * * * *')).toContain('empty')
    expect(scheduleProblem('* * * * *')).toBeNull()
  })
})
