import { describe, expect, test } from 'bun:test'
import { apiTokenPrefix, generateApiToken, hashApiToken, isWellFormedApiToken } from './api-token.ts'

describe('API tokens', () => {
  test('start with the fixed prefix and pass their own checksum', () => {
    const token = generateApiToken()
    expect(token.startsWith(apiTokenPrefix)).toBe(true)
    expect(token).toHaveLength(apiTokenPrefix.length + 36)
    expect(isWellFormedApiToken(token)).toBe(true)
  })

  test('a one-character typo fails the checksum', () => {
    const token = generateApiToken()
    const last = token.at(-8) === 'a' ? 'b' : 'a'
    const typo = `${token.slice(0, -8)}${last}${token.slice(-7)}`
    expect(isWellFormedApiToken(typo)).toBe(false)
  })

  test('are random and hashed to a fixed-length digest', () => {
    const tokens = new Set(Array.from({ length: 200 }, generateApiToken))
    expect(tokens.size).toBe(200)
    expect(hashApiToken([...tokens][0] ?? '')).toMatch(/^[0-9a-f]{64}$/)
  })

  test('foreign shapes are refused', () => {
    expect(isWellFormedApiToken('ghp_abc')).toBe(false)
    expect(isWellFormedApiToken(`${apiTokenPrefix}short`)).toBe(false)
  })
})
