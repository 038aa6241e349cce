// The secret an installation was made with, checked at every start: instances (or a restore) started with another
// secret would seal what no other instance can open and refuse every cursor and session the others signed.

import { createHmac } from 'node:crypto'
import type { Store } from '../store/store.ts'

type InstallationTables = { installation: { key: string; value: string } }

/** Refusal to start with a secret other than the installation's. */
export class InstallationSecretMismatch extends Error {
  constructor() {
    super(
      'The secret is not the one this installation was made with (PLINTH_SECRET, or DATA_DIR/secret.key): every instance of one installation needs the same secret',
    )
    this.name = 'InstallationSecretMismatch'
  }
}

/** A check value of `secret`: derived one way, so the store never holds anything that opens what it sealed. */
function checkOf(secret: string): string {
  return createHmac('sha256', secret).update('plinth installation secret check v1').digest('base64url')
}

/** Records the secret's check on the first start; refuses with {@link InstallationSecretMismatch} on a later one. */
export async function checkInstallationSecret(store: Store, secret: string): Promise<void> {
  const check = checkOf(secret)
  const kept = await store.transaction(async (trx) => {
    const installation = trx.withTables<InstallationTables>()
    // Two instances starting at once on a new store agree on the first check written.
    await installation
      .insertInto('installation')
      .values({ key: 'secret_check', value: check })
      .onConflict((conflict) => conflict.column('key').doNothing())
      .execute()
    const row = await installation
      .selectFrom('installation')
      .select('value')
      .where('key', '=', 'secret_check')
      .executeTakeFirstOrThrow()
    return row.value
  })
  if (kept !== check) throw new InstallationSecretMismatch()
}

/**
 * Whether `secret` is the installation's, read without writing: false for another one, true for the same one or
 * when none is recorded yet (a store from before the check, or a new one). For `config check`.
 */
export async function secretMatchesInstallation(store: Store, secret: string): Promise<boolean> {
  if (!(await store.tables()).includes('installation')) return true
  const row = await store.db
    .withTables<InstallationTables>()
    .selectFrom('installation')
    .select('value')
    .where('key', '=', 'secret_check')
    .executeTakeFirst()
  return row === undefined || row.value === checkOf(secret)
}
