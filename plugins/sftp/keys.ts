// SSH public keys of SFTP accounts: a line as `ssh-keygen` writes it (`ssh-ed25519 AAAA… comment`) checked and
// reduced to what the node compares logins with, and fingerprints as OpenSSH prints them.

import { createHash } from 'node:crypto'
import { utils } from 'ssh2'

/** Key types an account may have: Ed25519, ECDSA on the NIST curves, RSA of at least 2048 bits. */
export const acceptedKeyTypes = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
] as const

/** The least modulus an RSA key may have. */
export const minimumRsaBits = 2048

/** A public key that passed the checks. */
export interface CheckedKey {
  readonly type: string
  /** `<type> <base64 of the key blob>`, without the comment: what the node keeps. */
  readonly openssh: string
  readonly fingerprint: string
  readonly comment: string
}

/** The SHA-256 fingerprint of a key blob (the SSH wire encoding) as OpenSSH prints it: `SHA256:` and unpadded base64. */
export function fingerprintOf(blob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}

/** The strings of an SSH wire-encoded blob (type, then its fields), or null when it is not one. */
function wireStrings(blob: Buffer): Buffer[] | null {
  const fields: Buffer[] = []
  let offset = 0
  while (offset < blob.length) {
    if (offset + 4 > blob.length) return null
    const length = blob.readUInt32BE(offset)
    offset += 4
    if (offset + length > blob.length) return null
    fields.push(blob.subarray(offset, offset + length))
    offset += length
  }
  return fields
}

/** Bits of an RSA modulus (an SSH mpint: big-endian, a leading zero byte when the top bit is set). */
function modulusBits(mpint: Buffer): number {
  let start = 0
  while (start < mpint.length && mpint[start] === 0) start++
  if (start === mpint.length) return 0
  return (mpint.length - start - 1) * 8 + (32 - Math.clz32(mpint[start] ?? 0))
}

/**
 * Checks one public key line (`<type> <base64> [comment]`); answers the key, or why it is refused: a type outside
 * {@link acceptedKeyTypes} (DSA, certificates, security-key types), a blob that is not of its stated type or does not
 * parse, an RSA key under 2048 bits.
 */
export function checkPublicKey(line: string): CheckedKey | { readonly refused: string } {
  const text = line.trim()
  if (text.length === 0 || text.length > 16_384 || /[\r\n\0]/.test(text)) return { refused: 'not one line' }
  const [type = '', data = '', ...rest] = text.split(/\s+/)
  if (!(acceptedKeyTypes as readonly string[]).includes(type))
    return { refused: `type ${JSON.stringify(type.slice(0, 40))} is not accepted` }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return { refused: 'the key is not base64' }
  const blob = Buffer.from(data, 'base64')
  const fields = wireStrings(blob)
  if (!fields || fields[0]?.toString('latin1') !== type)
    return { refused: 'the key is not of its stated type' }
  const parsed = utils.parseKey(`${type} ${data}`)
  if (parsed instanceof Error || Array.isArray(parsed) || parsed.type !== type)
    return { refused: 'the key does not parse' }
  if (type === 'ssh-rsa') {
    const bits = modulusBits(fields[2] ?? Buffer.alloc(0))
    if (bits < minimumRsaBits)
      return { refused: `RSA keys need at least ${minimumRsaBits} bits (this one has ${bits})` }
  }
  const canonical = parsed.getPublicSSH()
  return {
    type,
    openssh: `${type} ${canonical.toString('base64')}`,
    fingerprint: fingerprintOf(canonical),
    comment: rest.join(' ').slice(0, 200),
  }
}
