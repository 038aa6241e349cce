// Token formats: their shape, checksum, hashing, and comparison that never tells whether a holder exists.

import { describe, expect, test } from 'bun:test'
import { apiTokens } from './api-token.ts'
import { tokenFormat } from './token-format.ts'

const agentTokens = tokenFormat({ prefix: 'plinth_node_', randomLength: 40 })

describe('token formats', () => {
  test('API tokens are plinth_ with 36 base62 characters, random, well formed', () => {
    const tokens = Array.from({ length: 200 }, () => apiTokens.generate())
    for (const token of tokens) {
      expect(token).toMatch(/^plinth_[0-9A-Za-z]{36}$/)
      expect(apiTokens.isWellFormed(token)).toBe(true)
    }
    expect(new Set(tokens).size).toBe(tokens.length)
  })

  test('a one-character typo, an extra character or another prefix fails', () => {
    const token = agentTokens.generate()
    const position = agentTokens.prefix.length + 3
    const changed = `${token.slice(0, position)}${token[position] === 'x' ? 'y' : 'x'}${token.slice(position + 1)}`
    expect(agentTokens.isWellFormed(changed)).toBe(false)
    expect(agentTokens.isWellFormed(`${token}a`)).toBe(false)
    expect(apiTokens.isWellFormed(token)).toBe(false)
    expect(agentTokens.isWellFormed(apiTokens.generate())).toBe(false)
    expect(apiTokens.isWellFormed('ghp_abc')).toBe(false)
  })

  test('match only the token whose hash is stored; nothing matches a missing holder or a corrupt hash', () => {
    const token = agentTokens.generate()
    const stored = agentTokens.hash(token)
    expect(stored).toMatch(/^[0-9a-f]{64}$/)
    expect(agentTokens.matches(token, stored)).toBe(true)
    expect(agentTokens.matches(agentTokens.generate(), stored)).toBe(false)
    expect(agentTokens.matches(null, stored)).toBe(false)
    expect(agentTokens.matches('', stored)).toBe(false)
    expect(agentTokens.matches(token, null)).toBe(false)
    expect(agentTokens.matches(token, 'abc')).toBe(false)
    expect(agentTokens.matches('plinth_node_unmatchable', null)).toBe(false)
  })

  test('refuses a prefix or a length that would make a weak or ambiguous token', () => {
    expect(() => tokenFormat({ prefix: 'Plinth', randomLength: 30 })).toThrow(/prefix/)
    expect(() => tokenFormat({ prefix: 'x_', randomLength: 10 })).toThrow(/128 bits/)
  })
})
