// Entity tags compared as RFC 9110 says: weak comparison for If-None-Match, strong for If-Match.

import { describe, expect, test } from 'bun:test'
import { changeMayProceed, clientHasCurrent, entityTagOf } from './conditional-requests.ts'

describe('conditional requests', () => {
  const tag = entityTagOf('{"id":"site_1"}')

  test('the same representation has the same tag, another one another', () => {
    expect(entityTagOf('{"id":"site_1"}')).toBe(tag)
    expect(entityTagOf('{"id":"site_2"}')).not.toBe(tag)
    expect(tag).toMatch(/^"[0-9a-z]+"$/)
  })

  test('If-None-Match matches weakly, in a list, or with *', () => {
    expect(clientHasCurrent(tag, tag)).toBe(true)
    expect(clientHasCurrent(`W/${tag}`, tag)).toBe(true)
    expect(clientHasCurrent(`"other", ${tag}`, tag)).toBe(true)
    expect(clientHasCurrent('*', tag)).toBe(true)
    expect(clientHasCurrent('"other"', tag)).toBe(false)
    expect(clientHasCurrent(null, tag)).toBe(false)
  })

  test('If-Match matches strongly only: "bogus" and weak tags stop the change', () => {
    expect(changeMayProceed(tag, tag)).toBe(true)
    expect(changeMayProceed('*', tag)).toBe(true)
    expect(changeMayProceed('"bogus"', tag)).toBe(false)
    expect(changeMayProceed(`W/${tag}`, tag)).toBe(false)
    expect(changeMayProceed('bogus', tag)).toBe(false)
  })
})
