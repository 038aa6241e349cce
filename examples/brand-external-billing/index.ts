// A brand's own billing, swapped in for the standard `billing` plugin: plans and subscriptions come only from its
// billing system's signed callbacks, customers are sent to the brand's shop instead of checking out here, and plan
// limits and suspension work exactly as with the standard plugin (the same kernel slot and customers service).

import { brandDirectoryService, customerLimitsService, definePlugin, nowIso } from '../../core/index.ts'
import { billingEvents, billingScopeDefinitions, planDependents } from '../../plugins/billing/contract.ts'
import { customerDependents } from '../../plugins/customers/contract.ts'
import { type BrandBillingTables, brandBillingMigrations } from './migrations.ts'
import { externalBillingProblems } from './problems.ts'
import { standingOf, toSubscription } from './repository.ts'
import { brandBillingRoutes } from './routes.ts'

/** Options of {@link externalBillingPlugin}. */
export interface ExternalBillingOptions {
  /** The secret shared with the billing system, 32 characters or more. */
  readonly secret: string
  /** Where customers buy plans; sent with every refused checkout. */
  readonly checkoutUrl: string
  /** How far a callback's timestamp may be from the panel's clock, in seconds. Default 300. */
  readonly toleranceSeconds?: number
  /**
   * The brand whose billing system this is (`brd_…`): the plans it announces are that brand's, offered to its
   * customers only. Default: the installation's default brand. A brand that does not exist stops the start-up.
   */
  readonly brandId?: string
}

/**
 * The brand's billing plugin, mounted in place of the standard one (deployment.ts). It honours the standard
 * billing's contract, which the kernel checks when it is given as an override (`overrides`, as the tests do).
 */
export const externalBillingPlugin = (options: ExternalBillingOptions) => {
  if (options.secret.length < 32)
    throw new Error('The billing callback secret must be at least 32 characters long')
  return definePlugin({
    name: 'billing',
    version: '1.0.0',
    description: 'Billing by the brand’s own system: plans and subscriptions arrive as signed callbacks.',
    requires: ['customers'],
    scopes: billingScopeDefinitions,
    events: billingEvents,
    problems: externalBillingProblems,
    migrations: brandBillingMigrations,
    // Part of the contract it honours: plugins may hang records on plans (its plans are deleted by the billing
    // system's callbacks, not through the API, so none of them block anything here).
    extensionPoints: [planDependents],
    async setup(context) {
      context.provide(customerLimitsService, {
        standingOf: (db, customerId) => standingOf(db, customerId, context.quotas),
      })
      // A deleted customer's mirrored subscriptions end with it: `subscription.cancelled` tells the billing system.
      context.extensionPoint(customerDependents).add({
        name: 'billing',
        remove: (run, customer) =>
          run.transaction(async (trx) => {
            const tables = trx.withTables<BrandBillingTables>()
            const rows = await tables
              .selectFrom('brand_billing_subscriptions')
              .selectAll()
              .where('customer_id', '=', customer.id)
              .execute()
            for (const row of rows.filter((row) => row.status !== 'cancelled')) {
              const cancelled = { ...row, status: 'cancelled', cancelled_at: nowIso(), updated_at: nowIso() }
              await run.audit(trx, {
                action: 'subscription.cancel',
                subject: { type: 'subscription', id: row.id },
                customerId: row.customer_id,
                details: { from: row.status, reason: 'customer deleted' },
              })
              await context.emit(trx, {
                kind: 'subscription.cancelled',
                customerId: row.customer_id,
                data: toSubscription(cancelled),
              })
            }
            await tables
              .deleteFrom('brand_billing_subscriptions')
              .where('customer_id', '=', customer.id)
              .execute()
          }),
      })
      const brandId = options.brandId
      if (brandId !== undefined && !(await context.use(brandDirectoryService).findBrand(brandId)))
        throw new Error(`The billing plugin's brandId ${brandId} names no brand of this installation`)
    },
    routes: (context) =>
      brandBillingRoutes(context, {
        secret: options.secret,
        brandId: options.brandId ?? null,
        toleranceSeconds: options.toleranceSeconds ?? 300,
        checkoutUrl: options.checkoutUrl,
        callbackLimitBytes: 65_536,
      }),
    capabilities: () => ({ checkout: 'external', checkoutUrl: options.checkoutUrl }),
  })
}
