// Request ids: shaped like every other id (`req_` and 26 Crockford base32 characters, time first), but made for
// every request, so without asking the system for randomness each time.

import { base32, crockford } from './ids.ts'

/** 50 random bits per process: two instances counting from the same millisecond still make different ids. */
const processPart = Array.from(
  crypto.getRandomValues(new Uint8Array(10)),
  (byte) => crockford[byte % 32],
).join('')
const counterSpace = 32 ** 6

let lastMs = -1
let timePart = ''
let counter = 0

/**
 * A new request id: the time in milliseconds, a counter of this process's requests, and this process's random part.
 * Ids of one process sort in the order they were made (until the counter wraps, after a billion requests);
 * ids of two processes differ in their random part.
 */
export function newRequestId(now: number = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now
    timePart = base32(now, 10)
  }
  counter = (counter + 1) % counterSpace
  return `req_${timePart}${base32(counter, 6)}${processPart}`
}
