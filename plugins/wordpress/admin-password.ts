// WordPress administrators' passwords: generated or checked, and hashed the way WordPress 6.1 checks a hash that is
// not its own (`$P$`): PHP's crypt(), which reads bcrypt's `$2y$`. The panel keeps only that hash, sealed, and only
// until the site is installed.

import { randomBytes } from 'node:crypto'

const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'

/** A new password: 20 letters and digits without look-alikes. */
export function generateAdminPassword(): string {
  let password = ''
  // Rejection sampling keeps every letter equally likely.
  const limit = 256 - (256 % alphabet.length)
  while (password.length < 20)
    for (const byte of randomBytes(32))
      if (byte < limit && password.length < 20) password += alphabet[byte % alphabet.length]
  return password
}

/**
 * Whether a given password is strong enough for a site's administrator: 12 to 72 printable ASCII characters (bcrypt
 * reads 72 bytes), not all of one kind.
 */
export function isStrongAdminPassword(password: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((pattern) =>
    pattern.test(password),
  ).length
  return password.length >= 12 && password.length <= 72 && classes >= 2 && /^[\x20-\x7e]+$/.test(password)
}

/** The `$2y$` bcrypt hash WordPress checks with crypt() (bcrypt's `$2b$` is the same hash under PHP's older name). */
export async function adminPasswordHash(password: string): Promise<string> {
  const hash = await Bun.password.hash(password, { algorithm: 'bcrypt', cost: 10 })
  return hash.replace(/^\$2[ab]\$/, '$2y$')
}
