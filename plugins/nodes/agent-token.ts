// Node agent tokens: `plinth_node_` + 40 base62 characters of randomness (~238 bits) + a 6-character CRC32
// checksum. A node reports with its own token; only its SHA-256 is stored, and checks compare in constant time.

import { createHash, timingSafeEqual } from 'node:crypto'

/** The fixed prefix: a leaked agent token is recognisable, and never mistaken for an API token. */
export const agentTokenPrefix = 'plinth_node_'
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const randomLength = 40
const checksumLength = 6
const tokenPattern = new RegExp(`^${agentTokenPrefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`)

function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      // 248 = 4 × 62: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < length) out += base62[byte % 62]
    }
  }
  return out
}

function checksumOf(random: string): string {
  let value = Bun.hash.crc32(random)
  let out = ''
  for (let i = 0; i < checksumLength; i++) {
    out = base62[value % 62] + out
    value = Math.floor(value / 62)
  }
  return out
}

/** A new clear agent token. Show it once; store only {@link hashAgentToken} of it. */
export function generateAgentToken(): string {
  const random = randomBase62(randomLength)
  return `${agentTokenPrefix}${random}${checksumOf(random)}`
}

/** Whether `token` has the shape and checksum of an agent token: a typo is refused before any comparison. */
export function isWellFormedAgentToken(token: string): boolean {
  if (!tokenPattern.test(token)) return false
  const body = token.slice(agentTokenPrefix.length)
  return checksumOf(body.slice(0, randomLength)) === body.slice(randomLength)
}

/** SHA-256 of the token, hex: the only form stored. */
export function hashAgentToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** Compared against when the node has no token (or does not exist), so every check costs the same. */
const unmatchable = hashAgentToken('plinth_node_unmatchable')

/**
 * Whether `presented` is the token whose hash is `storedHash`. A null `storedHash` (no such node, or no token
 * issued yet) still goes through one comparison, so the time taken does not tell whether the node exists.
 */
export function agentTokenMatches(presented: string | null, storedHash: string | null): boolean {
  const wellFormed = presented !== null && isWellFormedAgentToken(presented)
  const given = Buffer.from(wellFormed ? hashAgentToken(presented) : unmatchable, 'hex')
  const expected = Buffer.from(storedHash ?? unmatchable, 'hex')
  // Hashes are 32 bytes; a stored value of any other length (corrupt row) matches nothing.
  const equal = expected.length === given.length && timingSafeEqual(given, expected)
  return equal && wellFormed && storedHash !== null
}
