// Limits as data: how several plans' limits add up, and how the DEFAULT_CUSTOMER_LIMITS setting is read.

import { describe, expect, test } from 'bun:test'
import {
  checkQuotaLimits,
  combineLimits,
  largestSetLimits,
  parseQuotaLimits,
  quotaLimitsSchema,
} from './quota-limits.ts'

const metrics = ['gadgets', 'sprockets', 'sizeMB']

describe('combineLimits', () => {
  test('adds each limit up, and a plan without one lifts it', () => {
    expect(
      combineLimits(metrics, [
        { gadgets: 2, sizeMB: 100 },
        { gadgets: 3, sizeMB: 50, sprockets: 1 },
      ]),
    ).toEqual({
      gadgets: 5,
      sizeMB: 150,
    })
    expect(combineLimits(metrics, [{ gadgets: 0 }])).toEqual({ gadgets: 0 })
  })

  test('of no plans limits nothing', () => {
    expect(combineLimits(metrics, [])).toEqual({})
  })
})

describe('largestSetLimits', () => {
  test('takes the largest a plan sets; a plan that sets none lowers nothing', () => {
    expect(largestSetLimits(['cpu', 'memory'], [{ cpu: 400 }, {}, { cpu: 200, memory: 64 }])).toEqual({
      cpu: 400,
      memory: 64,
    })
    expect(largestSetLimits(['cpu'], [{}, {}])).toEqual({})
  })
})

describe('parseQuotaLimits', () => {
  test('reads comma-separated metric=value pairs; empty means no limit', () => {
    expect(parseQuotaLimits('gadgets=1, sprockets = 2,sizeMB=1024')).toEqual({
      gadgets: 1,
      sprockets: 2,
      sizeMB: 1024,
    })
    expect(parseQuotaLimits('')).toEqual({})
    expect(parseQuotaLimits(' , ')).toEqual({})
  })

  test('refuses what is not a whole number, rather than falling back to no limit', () => {
    expect(() => parseQuotaLimits('gadgets=-1')).toThrow(/metric=value/)
    expect(() => parseQuotaLimits('gadgets=1.5')).toThrow(/metric=value/)
    expect(() => parseQuotaLimits('gadgets')).toThrow(/metric=value/)
    expect(() => parseQuotaLimits('gadgets=1,gadgets=2')).toThrow(/given twice/)
  })
})

describe('checkQuotaLimits', () => {
  test('accepts whole numbers of at least 0 of declared metrics and skips absent members', () => {
    expect(checkQuotaLimits(metrics, { gadgets: 0, sizeMB: undefined })).toEqual({ gadgets: 0 })
    expect(() => checkQuotaLimits(metrics, { gadgets: -1 })).toThrow(/at least 0/)
    expect(() => checkQuotaLimits(metrics, { gadgets: 1.5 })).toThrow(/at least 0/)
    expect(() => checkQuotaLimits(metrics, { mailboxes: 3 })).toThrow(/Unknown limit "mailboxes"/)
  })
})

test('the limits schema has one optional whole number per declared metric', () => {
  const schema = quotaLimitsSchema([{ name: 'gadgets', description: 'How many gadgets.' }])
  expect(Object.keys(schema.properties)).toEqual(['gadgets'])
  expect(schema.required ?? []).toEqual([])
})
