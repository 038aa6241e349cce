// Node agent tokens: their shape, that only the hash is compared, and that a missing node never matches.

import { describe, expect, test } from 'bun:test'
import {
  agentTokenMatches,
  agentTokenPrefix,
  generateAgentToken,
  hashAgentToken,
  isWellFormedAgentToken,
} from './agent-token.ts'

describe('agent tokens', () => {
  test('are plinth_node_ with 46 base62 characters, different every time, and well formed', () => {
    const tokens = Array.from({ length: 50 }, generateAgentToken)
    for (const token of tokens) {
      expect(token).toMatch(/^plinth_node_[0-9A-Za-z]{46}$/)
      expect(isWellFormedAgentToken(token)).toBe(true)
    }
    expect(new Set(tokens).size).toBe(tokens.length)
    expect(agentTokenPrefix).toBe('plinth_node_')
  })

  test('a changed character breaks the checksum', () => {
    const token = generateAgentToken()
    const position = agentTokenPrefix.length + 3
    const changed = `${token.slice(0, position)}${token[position] === 'x' ? 'y' : 'x'}${token.slice(position + 1)}`
    expect(isWellFormedAgentToken(changed)).toBe(false)
    expect(isWellFormedAgentToken(`${token}a`)).toBe(false)
    expect(isWellFormedAgentToken(token.replace('plinth_node_', 'plinth_'))).toBe(false)
  })

  test('match only the token whose hash is stored', () => {
    const token = generateAgentToken()
    const stored = hashAgentToken(token)
    expect(stored).toMatch(/^[0-9a-f]{64}$/)
    expect(agentTokenMatches(token, stored)).toBe(true)
    expect(agentTokenMatches(generateAgentToken(), stored)).toBe(false)
    expect(agentTokenMatches(null, stored)).toBe(false)
    expect(agentTokenMatches('', stored)).toBe(false)
  })

  test('nothing matches a node without a token (or no node at all), nor a corrupt stored hash', () => {
    const token = generateAgentToken()
    expect(agentTokenMatches(token, null)).toBe(false)
    expect(agentTokenMatches(token, 'abc')).toBe(false)
    expect(agentTokenMatches(token, '')).toBe(false)
    // The placeholder compared against for missing nodes is not a token anyone can present.
    expect(agentTokenMatches('plinth_node_unmatchable', null)).toBe(false)
  })
})
