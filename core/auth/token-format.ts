// Secret tokens of one shape (`<prefix><random base62><CRC32 checksum>`): API tokens, node agent tokens, and any
// later one. A leaked token is recognisable by its prefix, a typo is refused before any lookup, only a hash is kept.

import { timingSafeEqual } from 'node:crypto'

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const checksumLength = 6

/** One kind of token: how to make, recognise, hash and compare it. */
export interface TokenFormat {
  readonly prefix: string
  /** A new clear token. Show it once; store only {@link TokenFormat.hash} of it. */
  generate(): string
  /** Whether `token` has this kind's shape and checksum. */
  isWellFormed(token: string): boolean
  /** SHA-256 of the token, hex: the only form stored. The token's entropy makes a slow hash unnecessary. */
  hash(token: string): string
  /**
   * Whether `presented` is the token whose hash is `storedHash`, in constant time. A null `storedHash` (no such
   * holder) still costs one comparison, so the time taken does not tell whether the holder exists.
   */
  matches(presented: string | null, storedHash: string | null): boolean
}

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

/**
 * A token format: `prefix` (ending in `_`) then `randomLength` base62 characters (30 are about 178 bits) and a
 * 6-character checksum.
 * @example const agentTokens = tokenFormat({ prefix: 'plinth_node_', randomLength: 40 })
 */
export function tokenFormat(options: {
  readonly prefix: string
  readonly randomLength: number
}): TokenFormat {
  const { prefix, randomLength } = options
  if (!/^[a-z][a-z0-9_]*_$/.test(prefix))
    throw new Error(`Token prefix "${prefix}" must be lower-case and end in _`)
  if (randomLength < 22) throw new Error('A token needs at least 22 random characters (128 bits)')
  const pattern = new RegExp(`^${prefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`)
  // Native one-shot SHA-256: every request pays for it (a sixth of node:crypto's createHash per call).
  const hash = (token: string) => Bun.SHA256.hash(token, 'hex')
  const unmatchable = hash(`${prefix}unmatchable`)
  const isWellFormed = (token: string) => {
    if (!pattern.test(token)) return false
    const body = token.slice(prefix.length)
    return checksumOf(body.slice(0, randomLength)) === body.slice(randomLength)
  }
  return {
    prefix,
    generate() {
      const random = randomBase62(randomLength)
      return `${prefix}${random}${checksumOf(random)}`
    },
    isWellFormed,
    hash,
    matches(presented, storedHash) {
      const wellFormed = presented !== null && isWellFormed(presented)
      const given = Buffer.from(wellFormed ? hash(presented) : unmatchable, 'hex')
      const expected = Buffer.from(storedHash ?? unmatchable, 'hex')
      // Hashes are 32 bytes; a stored value of any other length (a corrupt row) matches nothing.
      const equal = expected.length === given.length && timingSafeEqual(given, expected)
      return equal && wellFormed && storedHash !== null
    },
  }
}
