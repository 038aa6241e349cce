// Signed callbacks from the brand's billing system: `X-Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>." followed by the raw body bytes, under the shared secret>`, accepted within a tolerance of the panel's clock.

import { createHmac, timingSafeEqual } from 'node:crypto'

/** The header that carries the signature. */
export const signatureHeader = 'x-billing-signature'

/**
 * The signature header's value for `body` sent at `timestamp` (unix seconds): what the billing system sends. A
 * string body is signed as its UTF-8 bytes; the MAC is always over the bytes as sent.
 */
export function signCallback(secret: string, timestamp: number, body: string | Uint8Array): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')
  return `t=${timestamp},v1=${digest}`
}

/** Why a callback was not accepted. */
export type SignatureFault = 'invalid' | 'stale'

/**
 * Checks a callback's signature header against its raw body bytes (not a decoded text, which would drop a BOM and
 * turn invalid UTF-8 into U+FFFD, so the panel would check other bytes than it was sent): `invalid` when it is
 * missing, malformed or wrong, `stale` when it was made more than `toleranceSeconds` away from `now` (so a captured
 * callback cannot be replayed later; replays within the window are caught by the callback id). Null when it is good.
 */
export function verifyCallback(
  secret: string,
  header: string | null,
  body: Uint8Array,
  options: { readonly toleranceSeconds: number; readonly now: Date },
): SignatureFault | null {
  const parts = new Map(
    (header ?? '').split(',').map((part) => {
      const [key = '', ...rest] = part.trim().split('=')
      return [key, rest.join('=')] as const
    }),
  )
  const timestamp = Number(parts.get('t'))
  const given = parts.get('v1') ?? ''
  if (!Number.isSafeInteger(timestamp) || !/^[0-9a-f]{64}$/.test(given)) return 'invalid'
  const expected = signCallback(secret, timestamp, body).split('v1=')[1] ?? ''
  // Compared in constant time, so the time taken says nothing about how much of a forgery was right.
  if (!timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'))) return 'invalid'
  if (Math.abs(options.now.getTime() / 1000 - timestamp) > options.toleranceSeconds) return 'stale'
  return null
}
