// The names of the panel's temporary logins and scratch databases (made for one backup or restore run on a node):
// the server sees them as temporary and when they were made, so whatever a crash left behind is found and dropped
// on every server later, without a record of its own.

import { randomBytes } from 'node:crypto'

/**
 * What every temporary name starts with. Customers' names start with `c` and their prefix (naming.ts), so no name of
 * theirs starts so; the engines take it (`^[a-z][a-z0-9_]*$`, no `__`).
 */
export const temporaryPrefix = 'plinth_tmp_'

/** `plinth_tmp_<UTC yyyymmddhhmmss>_<8 random letters and digits>`: 34 characters, within every engine's limit. */
const temporaryPattern = /^plinth_tmp_(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})_[a-z0-9]{8}$/

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A new temporary name made at `at`. */
export function temporaryNameAt(at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[-T:]/g, '')
  // 256 is not a multiple of 36: the few letters it favours cost nothing in a name that is unique, not secret.
  const tail = [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('')
  return `${temporaryPrefix}${stamp}_${tail}`
}

/** When the temporary name `name` was made, or null when it is not one. */
export function madeAtOf(name: string): Date | null {
  const match = temporaryPattern.exec(name)
  if (!match) return null
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[]
  const at = new Date(Date.UTC(year as number, (month as number) - 1, day, hour, minute, second))
  return Number.isNaN(at.getTime()) ? null : at
}
