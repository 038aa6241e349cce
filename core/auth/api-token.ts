// The API token format: `plinth_` + 30 base62 characters of randomness (~178 bits) + a 6-character CRC32 checksum.

/** The fixed prefix: a leaked token is recognisable by secret scanners. */
export const apiTokenPrefix = 'plinth_'
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const randomLength = 30
const checksumLength = 6
const tokenPattern = new RegExp(`^${apiTokenPrefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`)

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

/** A new clear token. Show it once; store only {@link hashApiToken} of it. */
export function generateApiToken(): string {
  const random = randomBase62(randomLength)
  return `${apiTokenPrefix}${random}${checksumOf(random)}`
}

/** Whether `token` has the right shape and checksum: a typo is refused before any lookup. */
export function isWellFormedApiToken(token: string): boolean {
  if (!tokenPattern.test(token)) return false
  const body = token.slice(apiTokenPrefix.length)
  return checksumOf(body.slice(0, randomLength)) === body.slice(randomLength)
}

/**
 * SHA-256 of the token, hex: the only form stored. The token's entropy makes a slow hash unnecessary; Bun's
 * one-shot native hash because every request pays for it (a sixth of node:crypto's `createHash` per call).
 */
export function hashApiToken(token: string): string {
  return Bun.SHA256.hash(token, 'hex')
}
