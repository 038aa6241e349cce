// Opaque, tamper-evident list cursors: the last key seen, signed together with what the list is and who walks it.

import { constantTimeEqual } from '@oslojs/crypto/subtle'
import { decodeBase64urlIgnorePadding } from '@oslojs/encoding'

const encoder = new TextEncoder()

/** HMAC-SHA-256 keyed with each secret seen, copied per use: keying costs as much again as the MAC itself. */
const keyedHashers = new Map<string, Bun.CryptoHasher>()
/** A panel has one secret; tests make many. Past this many, start over (a bound on memory). */
const maxKeyedHashers = 16

function signature(payload: string, binding: string, secret: string): string {
  let keyed = keyedHashers.get(secret)
  if (!keyed) {
    if (keyedHashers.size >= maxKeyedHashers) keyedHashers.clear()
    keyed = new Bun.CryptoHasher('sha256', secret)
    keyedHashers.set(secret, keyed)
  }
  // 128 bits of the HMAC: plenty against forgery, short enough for a URL. Bun's native HMAC and base64url (no
  // padding): every page pays for them.
  return keyed.copy().update(`${binding}\n${payload}`).digest().subarray(0, 16).toString('base64url')
}

/**
 * A cursor after `lastKey` for one walk: `binding` names the list, its filters and the caller, so a cursor from
 * another list, another caller or other filters does not verify.
 */
export function encodeCursor(lastKey: string, binding: string, secret: string): string {
  const payload = Buffer.from(lastKey, 'utf8').toString('base64url')
  return `${payload}.${signature(payload, binding, secret)}`
}

/** The key a cursor carries, or null when it is malformed, altered, or made for another walk. */
export function decodeCursor(cursor: string, binding: string, secret: string): string | null {
  const [payload, mac, ...rest] = cursor.split('.')
  if (!payload || !mac || rest.length > 0) return null
  const expected = encoder.encode(signature(payload, binding, secret))
  const given = encoder.encode(mac)
  if (given.length !== expected.length || !constantTimeEqual(given, expected)) return null
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(payload))
  } catch {
    return null
  }
}
