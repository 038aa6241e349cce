// The schedule's slot arithmetic on a fixed clock: each site's daily or weekly slot falls in the night window
// (UTC), spread by its id, and a slot is taken by a running or completed scheduled backup, or after three failures.

import { describe, expect, test } from 'bun:test'
import { resolvePolicyOptions } from './policy-options.ts'
import { policyStanding } from './policy-standing.ts'
import {
  defaultScheduleWindow,
  isOverdue,
  type ScheduleWindow,
  type SlotAttempt,
  slotOffsetMs,
  slotsAround,
  slotTaken,
} from './schedule-slots.ts'

const hour = 3_600_000
const sites = Array.from({ length: 200 }, (_, index) => `site_${String(index).padStart(26, '0')}`)

describe('slotsAround', () => {
  test('every daily slot falls within 01:00 to 05:00 UTC, and sites spread over the whole window', () => {
    const hours = new Set<number>()
    for (const site of sites) {
      const slots = slotsAround('daily', site, new Date('2026-06-10T12:00:00Z'), defaultScheduleWindow)
      if (!slots) throw new Error('a daily schedule has slots')
      expect(slots.previous.toISOString().slice(0, 10)).toBe('2026-06-10')
      expect(slots.previous.getUTCHours()).toBeGreaterThanOrEqual(1)
      expect(slots.previous.getUTCHours()).toBeLessThan(5)
      expect(slots.next.getTime() - slots.previous.getTime()).toBe(24 * hour)
      hours.add(slots.previous.getUTCHours())
    }
    expect([...hours].sort()).toEqual([1, 2, 3, 4])
  })

  test('before its time in the night, a site’s last slot is the night before', () => {
    const site = sites[0] as string
    const offset = slotOffsetMs('daily', site, defaultScheduleWindow)
    const today = Date.parse('2026-06-10T00:00:00Z') + offset
    const before = slotsAround('daily', site, new Date(today - 1), defaultScheduleWindow)
    const at = slotsAround('daily', site, new Date(today), defaultScheduleWindow)
    expect(before?.previous.getTime()).toBe(today - 24 * hour)
    expect(before?.next.getTime()).toBe(today)
    expect(at?.previous.getTime()).toBe(today)
  })

  test('weekly slots fall once a week in the window, on a day the site’s id picks, every weekday used', () => {
    const weekdays = new Set<number>()
    for (const site of sites) {
      const slots = slotsAround('weekly', site, new Date('2026-06-10T12:00:00Z'), defaultScheduleWindow)
      if (!slots) throw new Error('a weekly schedule has slots')
      expect(slots.next.getTime() - slots.previous.getTime()).toBe(7 * 24 * hour)
      expect(slots.previous.getTime()).toBeLessThanOrEqual(Date.parse('2026-06-10T12:00:00Z'))
      expect(slots.next.getTime()).toBeGreaterThan(Date.parse('2026-06-10T12:00:00Z'))
      expect(slots.previous.getUTCHours()).toBeGreaterThanOrEqual(1)
      expect(slots.previous.getUTCHours()).toBeLessThan(5)
      weekdays.add(slots.previous.getUTCDay())
      // The same site's slot the week after is the same weekday and time.
      const later = slotsAround('weekly', site, new Date('2026-06-17T12:00:00Z'), defaultScheduleWindow)
      expect(later?.previous.getTime()).toBe(slots.next.getTime())
    }
    expect(weekdays.size).toBe(7)
  })

  test('a window past midnight wraps: 22:00 for six hours runs to 04:00', () => {
    const window: ScheduleWindow = { startHour: 22, hours: 6 }
    for (const site of sites) {
      const hourOf = slotsAround(
        'daily',
        site,
        new Date('2026-06-10T12:00:00Z'),
        window,
      )?.previous.getUTCHours()
      expect(hourOf !== undefined && (hourOf >= 22 || hourOf < 4)).toBe(true)
    }
  })

  test('`off` has no slots', () => {
    expect(slotsAround('off', sites[0] as string, new Date(), defaultScheduleWindow)).toBeNull()
  })
})

describe('slotTaken', () => {
  const slot = new Date('2026-06-10T02:00:00Z')
  const now = new Date('2026-06-10T04:00:00Z')

  test('open with no scheduled backup since the slot (one before it does not count)', () => {
    expect(slotTaken([], slot, now)).toBe(false)
    expect(
      slotTaken(
        [{ status: 'completed', createdAt: '2026-06-09T02:00:00Z', finishedAt: '2026-06-09T02:05:00Z' }],
        slot,
        now,
      ),
    ).toBe(false)
  })

  test('taken by a running or a completed one', () => {
    expect(
      slotTaken([{ status: 'running', createdAt: '2026-06-10T02:01:00Z', finishedAt: null }], slot, now),
    ).toBe(true)
    expect(
      slotTaken(
        [{ status: 'completed', createdAt: '2026-06-10T02:01:00Z', finishedAt: '2026-06-10T02:09:00Z' }],
        slot,
        now,
      ),
    ).toBe(true)
  })

  test('a failure leaves it open again an hour after it ended, three attempts at most', () => {
    const failed = (at: string) => ({ status: 'failed', createdAt: at, finishedAt: at })
    expect(slotTaken([failed('2026-06-10T03:30:00Z')], slot, now)).toBe(true)
    expect(slotTaken([failed('2026-06-10T02:59:00Z')], slot, now)).toBe(false)
    expect(slotTaken([failed('2026-06-10T02:00:00Z'), failed('2026-06-10T02:30:00Z')], slot, now)).toBe(false)
    expect(
      slotTaken(
        [failed('2026-06-10T02:00:00Z'), failed('2026-06-10T02:10:00Z'), failed('2026-06-10T02:20:00Z')],
        slot,
        now,
      ),
    ).toBe(true)
  })
})

describe('isOverdue', () => {
  const now = new Date('2026-06-10T12:00:00Z')
  const grace = 6 * hour

  test('daily: overdue once the last good backup is older than a day and the grace', () => {
    expect(
      isOverdue(
        'daily',
        { lastGoodAt: '2026-06-09T06:01:00Z', createdAt: '2026-01-01T00:00:00Z' },
        now,
        grace,
      ),
    ).toBe(false)
    expect(
      isOverdue(
        'daily',
        { lastGoodAt: '2026-06-09T05:59:00Z', createdAt: '2026-01-01T00:00:00Z' },
        now,
        grace,
      ),
    ).toBe(true)
  })

  test('weekly: a week and the grace', () => {
    expect(
      isOverdue(
        'weekly',
        { lastGoodAt: '2026-06-03T06:01:00Z', createdAt: '2026-01-01T00:00:00Z' },
        now,
        grace,
      ),
    ).toBe(false)
    expect(
      isOverdue(
        'weekly',
        { lastGoodAt: '2026-06-03T05:59:00Z', createdAt: '2026-01-01T00:00:00Z' },
        now,
        grace,
      ),
    ).toBe(true)
  })

  test('a site never backed up counts from its creation; `off` is never overdue', () => {
    expect(isOverdue('daily', { lastGoodAt: null, createdAt: '2026-06-10T00:00:00Z' }, now, grace)).toBe(
      false,
    )
    expect(isOverdue('daily', { lastGoodAt: null, createdAt: '2026-06-08T00:00:00Z' }, now, grace)).toBe(true)
    expect(isOverdue('off', { lastGoodAt: null, createdAt: '2020-01-01T00:00:00Z' }, now, grace)).toBe(false)
  })
})

describe('two nights of looks, a minute apart', () => {
  test('each daily site is due exactly once a night, inside the window, and never again once its backup runs', () => {
    const options = resolvePolicyOptions({})
    // A node's fifty sites.
    const night = sites.slice(0, 50)
    const created = '2026-06-09T12:00:00.000Z'
    const attempts = new Map<string, SlotAttempt[]>(night.map((site) => [site, []]))
    const starts = new Map<string, string[]>(night.map((site) => [site, []]))
    for (let at = Date.parse('2026-06-09T12:00:00Z'); at < Date.parse('2026-06-11T12:00:00Z'); at += 60_000) {
      const now = new Date(at)
      for (const site of night) {
        const standing = policyStanding(
          {
            schedule: 'daily',
            site: { id: site, createdAt: created },
            lastGoodAt: null,
            attempts: attempts.get(site) ?? [],
          },
          options,
          now,
        )
        if (!standing.due) continue
        // The backup starts and completes within the minute.
        attempts
          .get(site)
          ?.push({ status: 'completed', createdAt: now.toISOString(), finishedAt: now.toISOString() })
        starts.get(site)?.push(now.toISOString())
      }
    }
    for (const site of night) {
      const times = starts.get(site) ?? []
      expect(times.map((time) => time.slice(0, 10))).toEqual(['2026-06-10', '2026-06-11'])
      for (const time of times) {
        const hourOf = new Date(time).getUTCHours()
        expect(hourOf >= 1 && hourOf < 5).toBe(true)
      }
      // The same time each night: the site's own minute.
      expect(times[1] && times[0] ? Date.parse(times[1]) - Date.parse(times[0]) : 0).toBe(24 * hour)
    }
  })
})
