// The quota check plugins run inside their creating transaction: the customer's limits (from the billing slot, or
// the installation's defaults) against its usage counters, refused with the code the metric's plugin declares.

import { type TObject, Type as t } from '@sinclair/typebox'
import { type SqlBool, sql } from 'kysely'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import type { UsageTables } from '../usage/usage-tables.ts'
import type { CustomerLimits, CustomerStanding } from './customer-limits.ts'
import { combineSettings, type PlanSettingDefinition, type PlanSettings } from './plan-settings.ts'
import {
  checkQuotaLimits,
  combineLimits,
  largestSetLimits,
  type QuotaLimits,
  type QuotaMetric,
  quotaLimitsSchema,
} from './quota-limits.ts'

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
  /** One entry per metric plans may limit. */
  readonly limits: Readonly<Record<string, QuotaUse>>
}

/** What a creating operation is about to add for a customer: `{ sites: 1, domains: 1, diskMB: 500 }`. */
export interface QuotaRequest {
  readonly customerId: string
  /** The amounts, or how to work them out from the customer's quota as read for the check (one read, not two). */
  readonly amounts:
    | Readonly<Record<string, number>>
    | ((quota: CustomerQuota) => Readonly<Record<string, number>>)
}

/** A metric plans may limit, with the refusal past it (declared by the plugin that keeps its counter). */
export interface LimitedMetric extends QuotaMetric {
  readonly problem: ProblemRef
}

/** Customers' limits and the check creating routes make, as plugin contexts hand them out. */
export interface Quotas {
  /** Everything plans may limit, as every plugin declares it: the quota metrics, then the per-resource limits. */
  readonly metrics: readonly string[]
  /** The limits plans set on each resource of a kind (`cpuPercent` of each site), not on the customer's total. */
  readonly perResource: readonly string[]
  /** The `limits` object of plans and defaults: one optional whole number per metric (`QuotaLimits`). */
  readonly limitsSchema: TObject
  /**
   * The limits of several arrangements held at once: quota metrics summed, per-resource limits the largest (each
   * resource gets the most generous plan's); unlimited when one leaves it unlimited.
   */
  combine(list: readonly QuotaLimits[]): QuotaLimits
  /** Checks limits given outside the API (settings): whole numbers ≥ 0 of known metrics; throws otherwise. */
  check(limits: Readonly<Record<string, unknown>>): QuotaLimits
  /** The customer's limits and use, read through `db` (inside a transaction, its `trx`). */
  of(db: Db, customerId: string): Promise<CustomerQuota>
  /**
   * Checks, inside the transaction that creates resources, that `amounts` more fit within the customer's limits;
   * throws 422 with the metric's declared problem (`site_limit_reached`, …, with `metric`, `limit`, `used` and
   * `requested`) or `customer_suspended`. Move the usage counters (`context.usage.adjust`) in the same
   * transaction: concurrent creates for the last slot then cannot both pass.
   * @example await context.quotas.reserve(trx, { customerId, amounts: { sites: 1, domains: 1 } })
   */
  reserve(trx: Trx, request: QuotaRequest): Promise<CustomerQuota>
  /**
   * The per-resource limits that bind the customer's resources (`{ cpuPercent: 200 }`; an absent member: none set),
   * read through `db`: its live subscriptions' combined, or the installation's defaults without one. A customer whose
   * every subscription is suspended answers `{}` (its resources are suspended; they are applied again with them).
   */
  perResourceOf(db: Db, customerId: string): Promise<QuotaLimits>
  /** The settings plans may carry, as every plugin declares them (`planSettings`). */
  readonly settings: readonly PlanSettingDefinition[]
  /** The settings of several plans held at once: each combined as its declaration says. */
  combineSettings(list: readonly PlanSettings[]): PlanSettings
  /**
   * The plan settings that apply to the customer, read through `db`: its live subscriptions' combined; none (`{}`)
   * without a live subscription.
   */
  settingsOf(db: Db, customerId: string): Promise<PlanSettings>
}

/** The customer's usage counters of `metrics`. */
async function usedBy(
  db: Db,
  customerId: string,
  metrics: readonly string[],
): Promise<Record<string, number>> {
  const used: Record<string, number> = Object.fromEntries(metrics.map((metric) => [metric, 0]))
  if (metrics.length === 0) return used
  const rows = await db
    .withTables<UsageTables>()
    .selectFrom('usage_counters')
    .select(['metric', 'value'])
    .where('scope_key', '=', `customer:${customerId}`)
    .where(sql<SqlBool>`metric in (${sql.join([...metrics])})`)
    .execute()
  for (const row of rows) used[row.metric] = (used[row.metric] ?? 0) + Number(row.value)
  return used
}

/** The kernel's quota service of one panel: `defaults` bind customers the slot leaves unbound. */
export function createQuotas(
  limited: readonly LimitedMetric[],
  perResourceLimits: readonly QuotaMetric[],
  settings: readonly PlanSettingDefinition[],
  defaultLimits: Readonly<Record<string, unknown>>,
  slot: () => CustomerLimits | null,
): Quotas {
  const metrics = limited.map((metric) => metric.name)
  const perResource = perResourceLimits.map((limit) => limit.name)
  for (const name of perResource)
    if (metrics.includes(name))
      throw new Error(`"${name}" is declared both as a usage metric and a resource limit`)
  const allLimits = [...metrics, ...perResource]
  // Resource limits carry the range their plugin can apply: checked in the defaults as plans' schema checks plans.
  const checked = [...metrics, ...perResourceLimits]
  const problems = new Map(limited.map((metric) => [metric.name, metric.problem]))
  const defaults = checkQuotaLimits(checked, defaultLimits)
  const nothingLeft = Object.fromEntries(metrics.map((metric) => [metric, 0]))

  async function standingOf(db: Db, customerId: string): Promise<CustomerStanding> {
    return (await slot()?.standingOf(db, customerId)) ?? { kind: 'none' }
  }

  async function of(db: Db, customerId: string): Promise<CustomerQuota> {
    const standing = await standingOf(db, customerId)
    const limits =
      standing.kind === 'none' ? defaults : standing.kind === 'subscribed' ? standing.limits : nothingLeft
    const used = await usedBy(db, customerId, metrics)
    const entries = metrics.map((metric) => {
      const limit = limits[metric] ?? null
      const held = used[metric] ?? 0
      return [metric, { limit, used: held, available: limit === null ? null : Math.max(0, limit - held) }]
    })
    return {
      customerId,
      source:
        standing.kind === 'none' ? 'default' : standing.kind === 'subscribed' ? 'subscriptions' : 'suspended',
      limits: Object.fromEntries(entries),
    }
  }

  /**
   * Two creates racing for the last slot cannot both pass, on either engine: on SQLite every transaction takes the
   * write lock when it begins (BEGIN IMMEDIATE), so the second one reads the counter only after the first
   * committed; on PostgreSQL both run serializable, the one that would not serialize is run again by the store and
   * then reads the counter the first one raised (hosts/multi-instance.test.ts races two instances for it).
   */
  async function reserve(trx: Trx, request: QuotaRequest): Promise<CustomerQuota> {
    const quota = await of(trx, request.customerId)
    const amounts = typeof request.amounts === 'function' ? request.amounts(quota) : request.amounts
    for (const metric of Object.keys(amounts))
      if (!problems.has(metric)) throw new Error(`No plugin declares the quota metric "${metric}"`)
    const asked = metrics.filter((metric) => (amounts[metric] ?? 0) > 0)
    if (asked.length === 0) return quota
    if (quota.source === 'suspended') throw new Problem(kernelProblems.customer_suspended)
    for (const metric of asked) {
      const requested = amounts[metric] ?? 0
      const { limit, used } = quota.limits[metric] ?? { limit: null, used: 0 }
      const problem = problems.get(metric)
      if (problem && limit !== null && used + requested > limit)
        throw new Problem(problem, { extensions: { metric, limit, used, requested } })
    }
    return quota
  }

  async function perResourceOf(db: Db, customerId: string): Promise<QuotaLimits> {
    const standing = await standingOf(db, customerId)
    const limits = standing.kind === 'none' ? defaults : standing.kind === 'subscribed' ? standing.limits : {}
    const bound: Record<string, number> = {}
    for (const name of perResource) {
      const value = limits[name]
      if (value !== undefined) bound[name] = value
    }
    return bound
  }

  async function settingsOf(db: Db, customerId: string): Promise<PlanSettings> {
    const standing = await standingOf(db, customerId)
    return standing.kind === 'subscribed' ? (standing.settings ?? {}) : {}
  }

  return {
    metrics: allLimits,
    perResource,
    limitsSchema: quotaLimitsSchema([...limited, ...perResourceLimits]),
    combine: (list) => ({
      ...combineLimits(metrics, list),
      ...largestSetLimits(perResource, list),
    }),
    check: (limits) => checkQuotaLimits(checked, limits),
    of,
    reserve,
    perResourceOf,
    settings,
    combineSettings: (list) => combineSettings(settings, list),
    settingsOf,
  }
}

/** A customer's limits beside its use, as capabilities and usage answer it: one entry per limited metric. */
export function quotaSchema(limited: readonly QuotaMetric[]): TObject {
  const Use = (what: string) =>
    t.Object(
      {
        limit: t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: 'The limit; null: none.' }),
        used: t.Integer({ description: 'What the customer holds now.' }),
        available: t.Union([t.Integer({ minimum: 0 }), t.Null()], {
          description: 'What is left before the limit (never below 0); null: no limit.',
        }),
      },
      { description: what },
    )
  return t.Object(
    {
      customerId: t.String({ description: 'The customer, `cus_…`.' }),
      source: t.Union([t.Literal('default'), t.Literal('subscriptions'), t.Literal('suspended')], {
        description:
          '`default`: the customer has no subscription and the installation’s default limits apply; `subscriptions`: the combined limits of its active and past-due subscriptions; `suspended`: every subscription is suspended, so nothing new may be created (every limit reads 0).',
      }),
      limits: t.Object(Object.fromEntries(limited.map((metric) => [metric.name, Use(metric.description)]))),
    },
    { $id: 'Quota' },
  )
}

/** The one customer a view holds, if it holds exactly one: whose limits capabilities and usage show. */
export function soleCustomerOf(view: TenantView): string | null {
  return view.kind === 'customers' && view.customerIds.length === 1 ? (view.customerIds[0] ?? null) : null
}
