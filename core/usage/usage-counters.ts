// Usage kept up to date as rows change, never counted by scanning: counters and hourly traffic per customer, per
// brand and for the whole installation, adjusted in the transaction of the change.

import { type SqlBool, sql } from 'kysely'
import type { KernelTables } from '../identity/tables.ts'
import { placeholder, QueryShapes } from '../store/prepared-query.ts'
import type { Db } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { brandOfCustomer } from '../tenancy/tenants.ts'

/**
 * What the usage operation counts. Plugins adjust the ones they own (`sites`, `domains`, `databases`, and
 * `diskMB`: the disk quotas given to sites, in MB); plan limits are checked against them (`reserveQuota`).
 */
export const usageMetrics = ['customers', 'sites', 'domains', 'databases', 'diskMB'] as const
export type UsageMetric = (typeof usageMetrics)[number]

/** The counter rows one customer's change touches: its own, its brand's and the installation's. */
async function scopeKeysOf(db: Db, customerId: string): Promise<string[]> {
  const brandId = await brandOfCustomer(db, customerId)
  return ['all', ...(brandId ? [`brand:${brandId}`] : []), `customer:${customerId}`]
}

/** Adds `delta` to a metric of a customer (and its brand and the installation). Call it in the change's transaction. */
export async function adjustUsage(
  db: Db,
  customerId: string,
  metric: UsageMetric,
  delta: number,
): Promise<void> {
  const counters = db.withTables<KernelTables>()
  for (const scope_key of await scopeKeysOf(db, customerId)) {
    await counters
      .insertInto('usage_counters')
      .values({ scope_key, metric, value: delta })
      .onConflict((conflict) =>
        conflict
          .columns(['scope_key', 'metric'])
          .doUpdateSet({ value: sql`usage_counters.value + excluded.value` }),
      )
      .execute()
  }
}

/** Records traffic a node reported for a customer's site, in the hour it happened. */
export async function recordTraffic(
  db: Db,
  customerId: string,
  sample: { readonly at: Date; readonly requests: number; readonly bytes: number },
): Promise<void> {
  const hour = sample.at.toISOString().slice(0, 13)
  const buckets = db.withTables<KernelTables>()
  for (const scope_key of await scopeKeysOf(db, customerId)) {
    await buckets
      .insertInto('traffic_buckets')
      .values({ scope_key, hour, requests: sample.requests, bytes: sample.bytes })
      .onConflict((conflict) =>
        conflict.columns(['scope_key', 'hour']).doUpdateSet({
          requests: sql`traffic_buckets.requests + excluded.requests`,
          bytes: sql`traffic_buckets.bytes + excluded.bytes`,
        }),
      )
      .execute()
  }
}

/** Usage within a view. */
export interface Usage {
  readonly customers: number
  readonly sites: number
  readonly domains: number
  readonly databases: number
  /** Disk quota given to the sites in view, in MB (sites without a quota count 0). */
  readonly diskMB: number
  readonly traffic: {
    readonly last24h: { readonly requests: number; readonly bytes: number }
    readonly last7d: { readonly requests: number; readonly bytes: number }
  }
}

/** The counter rows a view adds up: one for all or a brand, one per customer otherwise. */
function keysOfView(view: TenantView): string[] {
  if (view.kind === 'all') return ['all']
  if (view.kind === 'brand') return [`brand:${view.brandId}`]
  return view.customerIds.map((id) => `customer:${id}`)
}

// Compiled once per number of counter rows: every dashboard asks, so the queries are not rebuilt per request.
const counterSums = new QueryShapes()
const trafficSums = new QueryShapes()

/** `column in (k0, k1, ...)` over placeholders for `count` keys (never true for none). */
function inKeys(column: string, count: number) {
  const keys = Array.from({ length: count }, (_, i) => placeholder(`k${i}`))
  return keys.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${sql.ref(column)} in (${sql.join(keys)})`
}

/** Usage within `view`: a handful of indexed rows whatever the size of the installation. */
export async function usageOf(db: Db, view: TenantView, now: Date = new Date()): Promise<Usage> {
  const keys = keysOfView(view)
  const kernel = db.withTables<KernelTables>()
  const params: Record<string, string> = {}
  keys.forEach((key, i) => {
    params[`k${i}`] = key
  })
  const shape = String(keys.length)
  const counters = await counterSums.run(
    db,
    shape,
    () =>
      kernel
        .selectFrom('usage_counters')
        .select(['metric', sql<number>`sum(value)`.as('total')])
        .where(inKeys('scope_key', keys.length))
        .groupBy('metric'),
    params,
  )
  const total = (metric: UsageMetric) => Number(counters.find((row) => row.metric === metric)?.total ?? 0)
  const since = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString().slice(0, 13)
  const traffic = async (hours: number) => {
    const [row] = await trafficSums.run(
      db,
      shape,
      () =>
        kernel
          .selectFrom('traffic_buckets')
          .select([
            sql<number>`coalesce(sum(requests), 0)`.as('requests'),
            sql<number>`coalesce(sum(bytes), 0)`.as('bytes'),
          ])
          .where(inKeys('scope_key', keys.length))
          .where('hour', '>', placeholder('since')),
      { ...params, since: since(hours) },
    )
    return { requests: Number(row?.requests ?? 0), bytes: Number(row?.bytes ?? 0) }
  }
  return {
    customers: total('customers'),
    sites: total('sites'),
    domains: total('domains'),
    databases: total('databases'),
    diskMB: total('diskMB'),
    traffic: { last24h: await traffic(24), last7d: await traffic(24 * 7) },
  }
}
