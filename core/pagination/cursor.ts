// Opaque, tamper-evident list cursors: the last key seen, signed together with what the list is and who walks it.

import { timingSafeEqual } from 'node:crypto'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const base64url = /^[A-Za-z0-9_-]+$/

/** The longest signed message a keyed MAC handles in its own buffer; longer ones take a slower path. */
const scratchBytes = 4096

/**
 * HMAC-SHA-256 (RFC 2104) under one secret, as two one-shot native hashes into buffers made once: every page
 * signs or checks a cursor, and Bun's streaming HMAC allocates several native objects per call.
 */
function keyedMac(secret: string): (message: string) => Buffer {
  let key = Buffer.from(secret, 'utf8')
  if (key.length > 64) key = Buffer.from(Bun.SHA256.hash(key) as Uint8Array)
  const inner = Buffer.alloc(64 + scratchBytes)
  const outer = Buffer.alloc(64 + 32)
  for (let i = 0; i < 64; i++) {
    inner[i] = (key[i] ?? 0) ^ 0x36
    outer[i] = (key[i] ?? 0) ^ 0x5c
  }
  const innerHash = outer.subarray(64)
  const mac = Buffer.alloc(32)
  return (message) => {
    const length = Buffer.byteLength(message, 'utf8')
    if (length > scratchBytes) {
      return Buffer.from(new Bun.CryptoHasher('sha256', secret).update(message).digest())
    }
    inner.write(message, 64, length, 'utf8')
    Bun.SHA256.hash(inner.subarray(0, 64 + length), innerHash)
    Bun.SHA256.hash(outer, mac)
    return mac
  }
}

/** A MAC per secret seen: a panel has one, tests make many; past a few, start over (a bound on memory). */
const macs = new Map<string, (message: string) => Buffer>()
const maxMacs = 16

function signature(payload: string, binding: string, secret: string): string {
  let mac = macs.get(secret)
  if (!mac) {
    if (macs.size >= maxMacs) macs.clear()
    mac = keyedMac(secret)
    macs.set(secret, mac)
  }
  // 128 bits of the HMAC: plenty against forgery, short enough for a URL (base64url, no padding).
  return mac(`${binding}\n${payload}`).toString('base64url', 0, 16)
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
  const expected = Buffer.from(signature(payload, binding, secret), 'utf8')
  const given = Buffer.from(mac, 'utf8')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  // Strict decoding, though only a payload the signature vouches for gets here: base64url without padding, UTF-8.
  if (!base64url.test(payload) || payload.length % 4 === 1) return null
  try {
    return strictUtf8.decode(Buffer.from(payload, 'base64url'))
  } catch {
    return null
  }
}
