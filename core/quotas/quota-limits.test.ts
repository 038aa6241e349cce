// Limits as data: how several plans' limits add up, and how the DEFAULT_CUSTOMER_LIMITS setting is read.

import { describe, expect, test } from 'bun:test'
import { checkQuotaLimits, combineLimits, parseQuotaLimits } from './quota-limits.ts'

describe('combineLimits', () => {
  test('adds each limit up, and a plan without one lifts it', () => {
    expect(
      combineLimits([
        { sites: 2, diskMB: 100 },
        { sites: 3, diskMB: 50, domains: 1 },
      ]),
    ).toEqual({
      sites: 5,
      diskMB: 150,
    })
    expect(combineLimits([{ sites: 0 }])).toEqual({ sites: 0 })
  })

  test('of no plans limits nothing', () => {
    expect(combineLimits([])).toEqual({})
  })
})

describe('parseQuotaLimits', () => {
  test('reads comma-separated metric=value pairs; empty means no limit', () => {
    expect(parseQuotaLimits('sites=1, domains = 2,diskMB=1024')).toEqual({
      sites: 1,
      domains: 2,
      diskMB: 1024,
    })
    expect(parseQuotaLimits('')).toEqual({})
    expect(parseQuotaLimits(' , ')).toEqual({})
  })

  test('refuses what is not a whole number of a known metric, rather than falling back to no limit', () => {
    expect(() => parseQuotaLimits('sites=-1')).toThrow(/metric=value/)
    expect(() => parseQuotaLimits('sites=1.5')).toThrow(/metric=value/)
    expect(() => parseQuotaLimits('sites')).toThrow(/metric=value/)
    expect(() => parseQuotaLimits('mailboxes=3')).toThrow(/Unknown limit "mailboxes"/)
    expect(() => parseQuotaLimits('sites=1,sites=2')).toThrow(/given twice/)
  })
})

describe('checkQuotaLimits', () => {
  test('accepts whole numbers of at least 0 and skips absent members', () => {
    expect(checkQuotaLimits({ sites: 0, diskMB: undefined })).toEqual({ sites: 0 })
    expect(() => checkQuotaLimits({ sites: -1 })).toThrow(/at least 0/)
    expect(() => checkQuotaLimits({ sites: 1.5 })).toThrow(/at least 0/)
  })
})
