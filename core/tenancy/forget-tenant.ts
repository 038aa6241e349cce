// Forgetting a customer the kernel keeps records of: its team, the API tokens limited to it, its place in the
// tenants registry and its own usage counters. Its audit entries stay: they carry their brand themselves.

import type { IdentityTables } from '../identity/identity-tables.ts'
import { nowIso } from '../ids/ids.ts'
import type { Db } from '../store/store.ts'
import type { UsageTables } from '../usage/usage-tables.ts'
import type { TenancyTables } from './tenancy-tables.ts'

/** What forgetting a customer ended: how many memberships and live tokens limited to it. */
export interface ForgottenTenant {
  readonly members: number
  readonly tokens: number
}

/**
 * Forgets `customerId` in `db` (the customer's deletion transaction): its memberships go, tokens limited to it are
 * revoked (401 from then on, no longer listed; revoked rather than erased, as audit entries name them as actors),
 * it leaves the tenants registry (so it is in no caller's view: `?customerId=` of it is 404) and its usage counters
 * go (the installation's and its brand's were counted down as its resources went). Idempotent: a second call
 * finds nothing.
 */
export async function forgetTenant(db: Db, customerId: string): Promise<ForgottenTenant> {
  const kernel = db.withTables<TenancyTables & IdentityTables & UsageTables>()
  const members = await kernel
    .deleteFrom('memberships')
    .where('customer_id', '=', customerId)
    .executeTakeFirst()
  const tokens = await kernel
    .updateTable('api_tokens')
    .set({ revoked_at: nowIso() })
    .where('customer_id', '=', customerId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  await kernel.deleteFrom('tenants').where('customer_id', '=', customerId).execute()
  await kernel.deleteFrom('usage_counters').where('scope_key', '=', `customer:${customerId}`).execute()
  return { members: Number(members.numDeletedRows), tokens: Number(tokens.numUpdatedRows) }
}
