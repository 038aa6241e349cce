// Type-prefixed, time-sortable identifiers (`site_01JD…`): a ULID after the prefix, monotonic within a millisecond.

/** Crockford's base32 alphabet, the characters of every id. */
export const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const randomLength = 16 // 80 bits, in 5-bit characters

let lastTime = -1
let lastRandom: number[] = []

/** `value` as `length` base32 characters, most significant first (an id's time is `base32(ms, 10)`). */
export function base32(value: number, length: number): string {
  let out = ''
  let rest = value
  for (let i = 0; i < length; i++) {
    out = crockford[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

function freshRandom(): number[] {
  const bytes = crypto.getRandomValues(new Uint8Array(randomLength))
  return Array.from(bytes, (byte) => byte % 32)
}

/** Adds one to the random part, so two ids made in the same millisecond still sort in creation order. */
function increment(digits: number[]): number[] {
  const next = [...digits]
  for (let i = next.length - 1; i >= 0; i--) {
    const digit = next[i] ?? 0
    if (digit < 31) {
      next[i] = digit + 1
      return next
    }
    next[i] = 0
  }
  // 2^80 ids in one millisecond: not reachable, but never hand out a duplicate.
  throw new Error('ULID random part overflowed within one millisecond')
}

/** A bare ULID: 26 Crockford base32 characters, lexicographically ordered by creation. */
export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom)
  } else {
    lastTime = now
    lastRandom = freshRandom()
  }
  return base32(lastTime, 10) + lastRandom.map((digit) => crockford[digit]).join('')
}

/**
 * A new identifier with its type prefix.
 * @example newId('site') // 'site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W'
 */
export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`
}

/** A pattern matching ids of one prefix; routes use it so a malformed id is a 404 before any lookup. */
export function idPattern(prefix: string): string {
  return `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`
}

/** The current time as an ISO 8601 UTC string with milliseconds, the only time format of the API. */
export function nowIso(): string {
  return new Date().toISOString()
}
