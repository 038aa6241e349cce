// A customer's standing from its subscriptions: the limits that bind it (the kernel's `kernel.customerLimits`
// slot), and whether its resources are on hold (`customers.suspensions`). One rule for both, so they never disagree.

import { type CustomerStanding, combineLimits, type Db, type Trx } from '../../core/index.ts'
import type { CustomerSuspensions, SuspensionRequest } from '../customers/contract.ts'
import { billingHolder } from './contract.ts'
import { limitsOf, subscriptionsOfCustomer } from './repository.ts'

/**
 * `subscribed` with the combined limits of its live (`active`, `past_due`) subscriptions; else `suspended` while a
 * subscription is suspended or cancelled with its removal still pending; else `none` (the installation's defaults).
 */
export async function standingOf(db: Db, customerId: string): Promise<CustomerStanding> {
  const rows = await subscriptionsOfCustomer(db, customerId)
  const live = rows.filter((row) => row.status === 'active' || row.status === 'past_due')
  if (live.length > 0) return { kind: 'subscribed', limits: combineLimits(live.map(limitsOf)) }
  const held = rows.some(
    (row) => row.status === 'suspended' || (row.status === 'cancelled' && row.removed_at === null),
  )
  return held ? { kind: 'suspended' } : { kind: 'none' }
}

/**
 * Puts the customer's resources on hold, or releases them, to match its standing after a change to its
 * subscriptions; runs in the change's transaction. Holding and releasing are idempotent, so every change calls it.
 */
export async function applyStanding(
  trx: Trx,
  suspensions: CustomerSuspensions,
  request: SuspensionRequest,
): Promise<void> {
  const standing = await standingOf(trx, request.customerId)
  const hold = { ...request, holder: billingHolder }
  if (standing.kind === 'suspended') await suspensions.hold(trx, hold)
  else await suspensions.release(trx, hold)
}
