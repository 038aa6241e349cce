// Standard Webhooks signing: `whsec_` secrets, and `v1,<base64 HMAC-SHA256>` signatures over "id.timestamp.body".

import { createHmac, randomBytes } from 'node:crypto'

/** The prefix of every signing secret. */
export const secretPrefix = 'whsec_'

/** Random bytes in a secret (Standard Webhooks asks for 24 to 64). */
const secretBytes = 32

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${secretPrefix}${randomBytes(secretBytes).toString('base64')}`
}

/** The HMAC key of a secret: the base64-decoded part after `whsec_`. */
function keyOf(secret: string): Buffer {
  if (!secret.startsWith(secretPrefix)) throw new Error('A webhook secret starts with "whsec_"')
  return Buffer.from(secret.slice(secretPrefix.length), 'base64')
}

/**
 * One signature: `v1,` + base64 of HMAC-SHA256(key, `${id}.${timestamp}.${body}`).
 * @example sign('whsec_…', 'evt_01J…', 1700000000, '{"id":…}') // 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='
 */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return `v1,${mac}`
}

/** The Standard Webhooks headers of one attempt: the same id every time, the time of this attempt, signatures. */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    // During a rotation both secrets sign: receivers that know either one accept the message.
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' '),
  }
}
