// A customer's standing from its subscriptions: the limits that bind it (the kernel's `kernel.customerLimits`
// slot), and whether its resources are on hold (`customers.suspensions`). One rule for both, so they never disagree.

import type { CustomerStanding, Db, Quotas, Trx } from '../../core/index.ts'
import type { CustomerSuspensions, SuspensionRequest } from '../customers/contract.ts'
import { billingHolder } from './contract.ts'
import { limitsOf, settingsOf, subscriptionsOfCustomer } from './repository.ts'

/**
 * `subscribed` with the combined limits of its live (`active`, `past_due`) subscriptions; else `suspended` while a
 * subscription is suspended or cancelled with its removal still pending; else `none` (the installation's defaults).
 */
export async function standingOf(
  db: Db,
  customerId: string,
  quotas: Pick<Quotas, 'combine' | 'combineSettings'>,
): Promise<CustomerStanding> {
  const rows = await subscriptionsOfCustomer(db, customerId)
  const live = rows.filter((row) => row.status === 'active' || row.status === 'past_due')
  if (live.length > 0)
    return {
      kind: 'subscribed',
      limits: quotas.combine(live.map(limitsOf)),
      settings: quotas.combineSettings(live.map(settingsOf)),
    }
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
  services: {
    readonly suspensions: CustomerSuspensions
    readonly quotas: Pick<Quotas, 'combine' | 'combineSettings'>
  },
  request: SuspensionRequest,
): Promise<void> {
  const standing = await standingOf(trx, request.customerId, services.quotas)
  const hold = { ...request, holder: billingHolder }
  if (standing.kind === 'suspended') await services.suspensions.hold(trx, hold)
  else await services.suspensions.release(trx, hold)
}
