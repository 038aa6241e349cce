// The retry schedule: the default delays, their ±10 % jitter, and the end of the schedule.

import { describe, expect, test } from 'bun:test'
import { defaultRetryScheduleMs, retryDelayMs, retryJitter } from './retry.ts'

const second = 1_000
const minute = 60 * second
const hour = 60 * minute

describe('defaultRetryScheduleMs', () => {
  test('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h', () => {
    expect(defaultRetryScheduleMs).toEqual([
      5 * second,
      5 * minute,
      30 * minute,
      2 * hour,
      5 * hour,
      10 * hour,
      14 * hour,
      20 * hour,
      24 * hour,
    ])
  })

  test('spreads ten attempts over about three days', () => {
    const total = defaultRetryScheduleMs.reduce((sum, delay) => sum + delay, 0)
    expect(defaultRetryScheduleMs).toHaveLength(9)
    expect(total).toBeGreaterThan(3 * 24 * hour)
    expect(total).toBeLessThan(3.5 * 24 * hour)
    // Even with every delay 10 % short, the last attempt comes after two and a half days.
    expect(total * (1 - retryJitter)).toBeGreaterThan(2.5 * 24 * hour)
  })

  test('never shortens from one delay to the next', () => {
    for (let i = 1; i < defaultRetryScheduleMs.length; i++) {
      expect(defaultRetryScheduleMs[i]).toBeGreaterThan(defaultRetryScheduleMs[i - 1] ?? 0)
    }
  })
})

describe('retryDelayMs', () => {
  const schedule = [1_000, 60_000, 3_600_000]

  test('counts failed attempts from 1: the first failure waits the first delay', () => {
    expect(retryDelayMs(schedule, 1, () => 0.5)).toBe(1_000)
    expect(retryDelayMs(schedule, 2, () => 0.5)).toBe(60_000)
    expect(retryDelayMs(schedule, 3, () => 0.5)).toBe(3_600_000)
  })

  test('is 10 % short at random() = 0 and 10 % long at random() = 1', () => {
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(900)
    expect(retryDelayMs(schedule, 1, () => 1)).toBe(1_100)
    expect(retryDelayMs(schedule, 3, () => 0)).toBe(3_240_000)
    expect(retryDelayMs(schedule, 3, () => 1)).toBe(3_960_000)
  })

  test('stays within ±10 % of every default delay for any random value', () => {
    for (const [index, base] of defaultRetryScheduleMs.entries()) {
      for (const value of [0, 0.001, 0.25, 0.5, 0.75, 0.999, 1]) {
        const delay = retryDelayMs(defaultRetryScheduleMs, index + 1, () => value)
        expect(delay).not.toBeNull()
        expect(delay ?? 0).toBeGreaterThanOrEqual(Math.round(base * 0.9))
        expect(delay ?? 0).toBeLessThanOrEqual(Math.round(base * 1.1))
      }
    }
  })

  test('spreads delays across the jitter band with the real random source', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(defaultRetryScheduleMs, 9)))
    expect(delays.size).toBeGreaterThan(1)
    for (const delay of delays) {
      expect(delay ?? 0).toBeGreaterThanOrEqual(0.9 * 24 * hour)
      expect(delay ?? 0).toBeLessThanOrEqual(1.1 * 24 * hour)
    }
  })

  test('is a whole number of milliseconds', () => {
    expect(Number.isInteger(retryDelayMs([5_000], 1, () => 0.123456789))).toBe(true)
  })

  test('is null after the last entry: the delivery has failed for good', () => {
    expect(retryDelayMs(schedule, 4, () => 0.5)).toBeNull()
    expect(retryDelayMs(defaultRetryScheduleMs, 9, () => 0.5)).toBe(24 * hour)
    expect(retryDelayMs(defaultRetryScheduleMs, 10, () => 0.5)).toBeNull()
    expect(retryDelayMs([], 1, () => 0.5)).toBeNull()
  })

  test('is null for a count of failures that is not 1-based', () => {
    expect(retryDelayMs(schedule, 0, () => 0.5)).toBeNull()
    expect(retryDelayMs(schedule, -1, () => 0.5)).toBeNull()
  })
})
