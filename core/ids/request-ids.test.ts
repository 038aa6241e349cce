import { describe, expect, test } from 'bun:test'
import { idPattern } from './ids.ts'
import { newRequestId } from './request-ids.ts'

describe('newRequestId', () => {
  test('is shaped like every other id, with the time first', () => {
    const at = Date.UTC(2026, 10, 25)
    const id = newRequestId(at)
    expect(id).toMatch(new RegExp(idPattern('req')))
    // The time prefix of a ULID made at that millisecond.
    expect(id.slice(4, 14)).toBe('01M8801200')
  })

  test('ids made in one millisecond differ and sort in the order they were made', () => {
    const now = Date.now()
    const ids = Array.from({ length: 1000 }, () => newRequestId(now))
    expect(new Set(ids).size).toBe(1000)
    expect([...ids].sort()).toEqual(ids)
  })

  test('a later millisecond sorts after an earlier one', () => {
    const now = Date.now()
    expect(newRequestId(now + 1) > newRequestId(now)).toBe(true)
  })
})
