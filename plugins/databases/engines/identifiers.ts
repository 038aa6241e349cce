// The last check of names before the engines quote them into statements, the same for both: whatever reaches an
// engine must already have passed the plugin's validation, and is refused here if it somehow did not.

import type { Access, Grant } from './engine.ts'

/** The shape of every name the plugin gives the engines (naming.ts makes them). */
export const namePattern = /^[a-z][a-z0-9_]*$/

/** Refuses a name that skipped the plugin's validation: it is about to be quoted into a statement. */
export function checkName(name: string, what: string): string {
  if (typeof name !== 'string' || name.length > 48 || !namePattern.test(name) || name.includes('__'))
    throw new Error(`Invalid ${what} name ${JSON.stringify(name)}`)
  return name
}

/** A database name as `checkName` has it, and none of the engine's own (`system`), which no tenant may touch. */
export function checkDatabaseName(name: string, system: ReadonlySet<string>, engine: string): string {
  checkName(name, 'database')
  if (system.has(name)) throw new Error(`${name} is a system database of ${engine}`)
  return name
}

/** The grants by database, each database checked with `checkDatabase` and granted once. */
export function checkGrants(
  grants: readonly Grant[],
  checkDatabase: (name: string) => string,
): Map<string, Access> {
  const wanted = new Map<string, Access>()
  for (const grant of grants) {
    checkDatabase(grant.database)
    if (grant.access !== 'readwrite' && grant.access !== 'readonly' && grant.access !== 'dump')
      throw new Error(`Invalid access ${JSON.stringify(grant.access)}`)
    if (wanted.has(grant.database)) throw new Error(`${grant.database} is granted twice`)
    wanted.set(grant.database, grant.access)
  }
  return wanted
}
