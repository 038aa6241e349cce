// The quota check plugins run inside their creating transaction: the customer's limits (from the billing slot, or
// the installation's defaults) against its usage counters, refused with a code naming the limit.

import { type SqlBool, sql } from 'kysely'
import type { KernelTables } from '../identity/tables.ts'
import { Problem } from '../problem/problem.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { CustomerLimits, CustomerStanding } from './customer-limits.ts'
import { type QuotaLimits, type QuotaMetric, quotaMetrics } from './quota-limits.ts'
import { limitProblems, quotaProblems } from './quota-problems.ts'

/** Where a customer stands against one limit. */
export interface QuotaUse {
  /** The limit; null when there is none. */
  readonly limit: number | null
  /** What the customer holds now (its usage counter). */
  readonly used: number
  /** What is left (never below 0); null when there is no limit. */
  readonly available: number | null
}

/** A customer's limits and use side by side. */
export interface CustomerQuota {
  readonly customerId: string
  /**
   * Where the limits come from: `default` (no subscription: the installation's defaults), `subscriptions` (its live
   * subscriptions combined), `suspended` (every subscription suspended: nothing new, so every limit reads 0).
   */
  readonly source: 'default' | 'subscriptions' | 'suspended'
  readonly limits: { readonly [M in QuotaMetric]: QuotaUse }
}

/** What a creating operation is about to add for a customer: `{ sites: 1, domains: 1, diskMB: 500 }`. */
export interface QuotaRequest {
  readonly customerId: string
  readonly amounts: { readonly [M in QuotaMetric]?: number }
}

const nothingLeft: QuotaLimits = { sites: 0, databases: 0, domains: 0, diskMB: 0 }

/** The customer's usage counters for the quota metrics. */
async function usedBy(db: Db, customerId: string): Promise<Record<QuotaMetric, number>> {
  const rows = await db
    .withTables<KernelTables>()
    .selectFrom('usage_counters')
    .select(['metric', 'value'])
    .where('scope_key', '=', `customer:${customerId}`)
    .where(sql<SqlBool>`metric in (${sql.join([...quotaMetrics])})`)
    .execute()
  const used = { sites: 0, databases: 0, domains: 0, diskMB: 0 }
  for (const row of rows) used[row.metric as QuotaMetric] = Number(row.value)
  return used
}

/** The kernel's quota service of one panel: `defaults` bind customers the slot leaves unbound. */
export function createQuotas(defaults: QuotaLimits, slot: () => CustomerLimits | null) {
  async function standingOf(db: Db, customerId: string): Promise<CustomerStanding> {
    return (await slot()?.standingOf(db, customerId)) ?? { kind: 'none' }
  }

  /** The customer's limits and use, read through `db`. */
  async function quotaOf(db: Db, customerId: string): Promise<CustomerQuota> {
    const standing = await standingOf(db, customerId)
    const limits =
      standing.kind === 'none' ? defaults : standing.kind === 'subscribed' ? standing.limits : nothingLeft
    const used = await usedBy(db, customerId)
    const entries = quotaMetrics.map((metric) => {
      const limit = limits[metric] ?? null
      const available = limit === null ? null : Math.max(0, limit - used[metric])
      return [metric, { limit, used: used[metric], available }] as const
    })
    return {
      customerId,
      source:
        standing.kind === 'none' ? 'default' : standing.kind === 'subscribed' ? 'subscriptions' : 'suspended',
      limits: Object.fromEntries(entries) as CustomerQuota['limits'],
    }
  }

  /**
   * Checks that `request.amounts` more fit within the customer's limits; call it inside the transaction that
   * creates the resources and adjusts their usage counters, before the counters move. Throws 422 with the code of
   * the first limit passed (`site_limit_reached`, ...), or `customer_suspended`.
   *
   * Two creates racing for the last slot cannot both pass: on SQLite every transaction takes the write lock when
   * it begins (BEGIN IMMEDIATE), so the second one reads the counter only after the first committed. PostgreSQL
   * will need the same serialisation made explicit, since READ COMMITTED lets both read the old counter: lock the
   * customer's counter rows first (`SELECT … FOR UPDATE` on `usage_counters` for `customer:<id>`, inserting them
   * if missing) or take `pg_advisory_xact_lock` on the customer id, then read.
   */
  async function reserveQuota(trx: Trx, request: QuotaRequest): Promise<CustomerQuota> {
    const quota = await quotaOf(trx, request.customerId)
    const asked = quotaMetrics.filter((metric) => (request.amounts[metric] ?? 0) > 0)
    if (asked.length === 0) return quota
    if (quota.source === 'suspended') throw new Problem(quotaProblems.customer_suspended)
    for (const metric of asked) {
      const requested = request.amounts[metric] ?? 0
      const { limit, used } = quota.limits[metric]
      if (limit !== null && used + requested > limit) {
        throw new Problem(limitProblems[metric], { extensions: { metric, limit, used, requested } })
      }
    }
    return quota
  }

  return { quotaOf, reserveQuota }
}

/** The quota service a panel hands to plugin contexts and kernel routes. */
export type Quotas = ReturnType<typeof createQuotas>

/** The one customer a view holds, if it holds exactly one: whose limits capabilities and usage show. */
export function soleCustomerOf(view: TenantView): string | null {
  return view.kind === 'customers' && view.customerIds.length === 1 ? (view.customerIds[0] ?? null) : null
}
