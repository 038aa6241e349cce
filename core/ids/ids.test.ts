import { describe, expect, test } from 'bun:test'
import { idPattern, newId, ulid } from './ids.ts'

describe('ids', () => {
  test('carry their prefix and match the pattern for it', () => {
    const id = newId('gadget')
    expect(id).toMatch(new RegExp(idPattern('gadget')))
    expect(id).not.toMatch(new RegExp(idPattern('cus')))
  })

  test('stay ordered when many are made in the same millisecond', () => {
    const fixed = Date.now()
    const ids = Array.from({ length: 1000 }, () => ulid(fixed))
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
  })

  test('sort by time across milliseconds', () => {
    const earlier = ulid(Date.now() + 10_000)
    const later = ulid(Date.now() + 20_000)
    expect(earlier < later).toBe(true)
  })
})
