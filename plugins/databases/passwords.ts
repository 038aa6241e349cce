// Database users' passwords: generated or checked, and turned into the verifier the server stores, so the panel
// hands servers what they keep anyway and never keeps the password itself.

import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto'
import type { EngineName } from './engines/engine.ts'

const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'

/** The character classes a password draws on: lower, upper, digit, other. */
function classesOf(password: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((pattern) => pattern.test(password)).length
}

/** A new password: 24 letters and digits without look-alikes (about 140 bits), all three classes present. */
export function generatePassword(): string {
  for (;;) {
    const bytes = randomBytes(48)
    let password = ''
    // Rejection sampling: bytes past the largest multiple of the alphabet would favour its first letters.
    const limit = 256 - (256 % alphabet.length)
    for (const byte of bytes) {
      if (byte >= limit) continue
      password += alphabet[byte % alphabet.length]
      if (password.length === 24) break
    }
    if (password.length === 24 && classesOf(password) >= 3) return password
  }
}

/**
 * Whether a password a client gave is strong enough: 16 to 128 printable ASCII characters (so every driver and
 * client reads it alike), with at least three of the four classes.
 */
export function isStrongPassword(password: string): boolean {
  return (
    password.length >= 16 &&
    password.length <= 128 &&
    /^[\x20-\x7e]+$/.test(password) &&
    classesOf(password) >= 3
  )
}

/** MariaDB's `mysql_native_password` hash: `*` and SHA1(SHA1(password)) in upper-case hex. */
function mariadbVerifier(password: string): string {
  const inner = createHash('sha1').update(password, 'utf8').digest()
  return `*${createHash('sha1').update(inner).digest('hex').toUpperCase()}`
}

/**
 * PostgreSQL's SCRAM-SHA-256 secret (RFC 5802, RFC 7677), as `CREATE ROLE … PASSWORD` accepts it pre-hashed:
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`. Passwords are ASCII, so SASLprep leaves them as they are.
 */
function postgresqlVerifier(password: string): string {
  const iterations = 4096
  const salt = randomBytes(16)
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256')
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  const storedKey = createHash('sha256').update(clientKey).digest()
  const serverKey = createHmac('sha256', salted).update('Server Key').digest()
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`
}

/** The verifier `engine` stores for `password`: what the panel gives the server instead of the password. */
export function verifierFor(engine: EngineName, password: string): string {
  return engine === 'mariadb' ? mariadbVerifier(password) : postgresqlVerifier(password)
}
