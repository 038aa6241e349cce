// The billing plugin: plans (a staff area), customers' subscriptions to them, checkout, and plan limits enforced
// through the kernel's `kernel.customerLimits` slot. Brands that bill elsewhere replace it (docs/billing.md).

import { customerLimitsService, definePlugin } from '../../core/index.ts'
import { brandDependents } from '../brands/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { billingEvents, billingScopeDefinitions, planDependents } from './contract.ts'
import { billingCustomerDependent } from './customer-deletion.ts'
import { billingJobs } from './jobs.ts'
import { billingMigrations } from './migrations.ts'
import { billingProblems } from './problems.ts'
import { plansOfBrand, unendedSubscriptionsOf } from './repository.ts'
import { type CheckoutMode, checkoutRoutes } from './routes/checkout.ts'
import { planRoutes } from './routes/plans.ts'
import { subscriptionRoutes } from './routes/subscriptions.ts'
import { standingOf } from './standing.ts'
import { subscriptionChanges } from './subscription-changes.ts'

export type { CheckoutMode }

/** Options of {@link billingPlugin}. */
export interface BillingOptions {
  /**
   * Hours between cancelling a customer's last subscription and removing its resources (suspended meanwhile).
   * Default 720 (30 days); 0 removes them at once.
   */
  readonly removalGraceHours?: number
  /**
   * `open` (default): a customer's owner or billing member subscribes the customer to a plan once, with no payment
   * taken, so offer self-service only for plans you are content to give away or bill afterwards. `closed`: checkout
   * answers 403 `checkout_closed`; staff or the billing system create subscriptions after payment elsewhere.
   */
  readonly checkout?: CheckoutMode
}

/** Billing: plans, subscriptions, checkout, suspension of customers' sites, and plan limits. */
export const billingPlugin = (options: BillingOptions = {}) => {
  const removalGraceHours = options.removalGraceHours ?? 720
  if (!(removalGraceHours >= 0)) throw new Error('removalGraceHours must be 0 or more')
  const removalGraceMs = Math.round(removalGraceHours * 3_600_000)
  const checkout = options.checkout ?? 'open'
  if (checkout !== 'open' && checkout !== 'closed') throw new Error('checkout must be "open" or "closed"')
  return definePlugin({
    name: 'billing',
    version: '0.1.0',
    description:
      'Plans and their limits, customers’ subscriptions, checkout, and suspension for non-payment.',
    requires: ['customers'],
    // Its console pages, when the installation has a console; a brand's plans keep the brand.
    enhances: ['console', 'brands'],
    scopes: billingScopeDefinitions,
    events: billingEvents,
    problems: billingProblems,
    migrations: billingMigrations,
    extensionPoints: [planDependents],
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context
        .extensionPoint(planDependents)
        .add({ name: 'subscriptions', blocking: (db, plan) => unendedSubscriptionsOf(db, plan.id) })
      context
        .extensionPoint(brandDependents)
        .add({ name: 'plans', blocking: (db, brand) => plansOfBrand(db, brand.id) })
      context.provide(customerLimitsService, {
        standingOf: (db, customerId) => standingOf(db, customerId, context.quotas),
      })
      // A customer's deletion cancels its subscriptions and forgets them.
      context.extensionPoint(customerDependents).add(billingCustomerDependent(context))
    },
    jobs: (context) => billingJobs(context),
    routes: (context) => {
      const changes = subscriptionChanges(context, { removalGraceMs })
      return [
        ...planRoutes(context),
        ...subscriptionRoutes(changes),
        ...checkoutRoutes(context, changes, { checkout }),
      ]
    },
    // `open` checkout starts subscriptions at once, without payment; `closed` refuses it (docs/billing.md).
    capabilities: () => ({ checkout, removalGraceHours }),
  })
}
