// The kernel slot a billing plugin fills: which limits bind a customer, read from its subscriptions.

import { defineService } from '../plugin/service.ts'
import type { Db } from '../store/store.ts'
import type { PlanSettings } from './plan-settings.ts'
import type { QuotaLimits } from './quota-limits.ts'

/**
 * What binds a customer, as the billing plugin knows it:
 * - `none`: no billing arrangement; the installation's default limits apply.
 * - `subscribed`: the combined limits of its live subscriptions (see `combineLimits`).
 * - `suspended`: every arrangement is suspended; the customer may create nothing until one is restored.
 */
export type CustomerStanding =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'subscribed'
      readonly limits: QuotaLimits
      /** The settings of its live subscriptions' plans, combined (`Quotas.combineSettings`). Default none. */
      readonly settings?: PlanSettings
    }
  | { readonly kind: 'suspended' }

/** What the kernel asks the billing plugin about a customer. */
export interface CustomerLimits {
  /**
   * The customer's standing, read through `db` (the creating transaction when a quota is reserved, so the answer
   * and the change commit together). Must not write.
   */
  standingOf(db: Db, customerId: string): Promise<CustomerStanding>
}

/**
 * The kernel slot for plan limits. The billing plugin (or whichever plugin replaces it) provides it; without one,
 * every customer is bound by the installation's default limits (`PanelOptions.defaultCustomerLimits`).
 */
export const customerLimitsService = defineService<CustomerLimits>({
  id: 'kernel.customerLimits',
  owner: 'kernel',
  description: 'Tells the kernel which limits bind a customer. Provided by the billing plugin.',
})
