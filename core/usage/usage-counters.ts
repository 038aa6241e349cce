// Usage kept up to date as rows change, never counted by scanning: counters per customer, per brand and for the
// whole installation, adjusted in the transaction of the change by the plugin that declares each metric.

import { type SqlBool, sql } from 'kysely'
import { isPostgres } from '../store/engine.ts'
import { placeholder, QueryShapes } from '../store/prepared-query.ts'
import type { Db } from '../store/store.ts'
import type { TenantView } from '../tenancy/tenant-view.ts'
import { brandOfCustomer } from '../tenancy/tenants.ts'
import type { UsageTables } from './usage-tables.ts'

/** The usage counters as a plugin sees them: its own metrics to adjust, every metric to read. */
export interface UsageCounters {
  /**
   * Adds `delta` to a metric this plugin declares, for the customer (and its brand and the installation). Call
   * it in the transaction of the change, after `context.quotas.reserve` for a limited metric.
   * @example await context.usage.adjust(trx, customerId, 'sites', 1)
   */
  adjust(db: Db, customerId: string, metric: string, delta: number): Promise<void>
  /** Every declared counter summed over a view (what `GET /usage` shows). */
  of(db: Db, view: TenantView): Promise<Record<string, number>>
  /**
   * The usage scopes a customer's records count under (the installation, its brand, itself), for a plugin that
   * keeps sums of its own (traffic by hour) and reads them back in a `usageSections` entry.
   */
  scopesOf(db: Db, customerId: string): Promise<string[]>
  /** The usage scopes that add up to a view: one for the installation or a brand, one per customer otherwise. */
  scopesOfView(view: TenantView): string[]
}

/**
 * Rows the installation's and each brand's counters are spread over on PostgreSQL, where every change of their
 * customers adds to them: concurrent serializable transactions then seldom update the same row. SQLite, with one
 * writer, keeps one.
 */
const counterShards = 16

/** The counter rows one customer's change touches: its own, its brand's and the installation's. */
export async function usageScopesOf(db: Db, customerId: string): Promise<string[]> {
  const brandId = await brandOfCustomer(db, customerId)
  return ['all', ...(brandId ? [`brand:${brandId}`] : []), `customer:${customerId}`]
}

/** The counter rows a view adds up. */
export function usageScopesOfView(view: TenantView): string[] {
  if (view.kind === 'all') return ['all']
  if (view.kind === 'brand') return [`brand:${view.brandId}`]
  return view.customerIds.map((id) => `customer:${id}`)
}

/** `column in (k0, k1, ...)` over placeholders for `count` keys (never true for none). */
function inKeys(column: string, count: number) {
  const keys = Array.from({ length: count }, (_, i) => placeholder(`k${i}`))
  return keys.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${sql.ref(column)} in (${sql.join(keys)})`
}

// Compiled once per number of counter rows: every dashboard asks, so the query is not rebuilt per request.
const counterSums = new QueryShapes()
// Compiled once per number of scopes a change touches: every create and delete adjusts counters.
const counterUpserts = new QueryShapes()

/** Every counter summed over `view`: a handful of indexed rows whatever the size of the installation. */
async function countersOf(
  db: Db,
  view: TenantView,
  metrics: readonly string[],
): Promise<Record<string, number>> {
  const keys = usageScopesOfView(view)
  const params: Record<string, string> = {}
  keys.forEach((key, i) => {
    params[`k${i}`] = key
  })
  const rows = await counterSums.run(
    db,
    String(keys.length),
    () =>
      db
        .withTables<UsageTables>()
        .selectFrom('usage_counters')
        .select(['metric', sql<number>`sum(value)`.as('total')])
        .where(inKeys('scope_key', keys.length))
        .groupBy('metric'),
    params,
  )
  const totals = Object.fromEntries(metrics.map((metric) => [metric, 0]))
  for (const row of rows) if (row.metric in totals) totals[row.metric] = Number(row.total)
  return totals
}

/** The counters of one panel, as the plugin `owner` (declaring `owned`) sees them; `metrics` are all declared. */
export function usageCountersFor(
  owner: string,
  owned: readonly string[],
  metrics: readonly string[],
): UsageCounters {
  return {
    async adjust(db, customerId, metric, delta) {
      if (!owned.includes(metric))
        throw new Error(`"${owner}" adjusts the usage metric "${metric}", which it does not declare`)
      const spread = isPostgres(db)
      const scopes = await usageScopesOf(db, customerId)
      const params: Record<string, string | number> = { metric, delta }
      scopes.forEach((scope, i) => {
        params[`s${i}`] = scope
        // A customer's own counter stays one row: its changes seldom race, and its quota reads it.
        params[`h${i}`] =
          spread && !scope.startsWith('customer:') ? Math.floor(Math.random() * counterShards) : 0
      })
      // Every scope's row in one statement, compiled once per number of scopes.
      await counterUpserts.run(
        db,
        String(scopes.length),
        () =>
          db
            .withTables<UsageTables>()
            .insertInto('usage_counters')
            .values(
              scopes.map((_, i) => ({
                scope_key: placeholder(`s${i}`),
                metric: placeholder('metric'),
                shard: placeholder(`h${i}`) as unknown as number,
                value: placeholder('delta') as unknown as number,
              })),
            )
            .onConflict((conflict) =>
              conflict
                .columns(['scope_key', 'metric', 'shard'])
                .doUpdateSet({ value: sql`usage_counters.value + excluded.value` }),
            ),
        params,
      )
    },
    of: (db, view) => countersOf(db, view, metrics),
    scopesOf: usageScopesOf,
    scopesOfView: usageScopesOfView,
  }
}
