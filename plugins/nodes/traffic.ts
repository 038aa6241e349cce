// Traffic nodes report, summed per usage scope (`all`, `brand:<id>`, `customer:<id>`) and hour (`2026-11-22T05`),
// and the `traffic` section of `GET /usage` read back from those sums: a handful of rows whatever the traffic.

import { type Db, type Static, sql, t, type UsageSection } from '../../core/index.ts'
import type { NodesTables, NodeTrafficTable } from './migrations.ts'

/** Traffic of a customer's site at one time, under the customer's usage scopes (`context.usage.scopesOf`). */
export interface TrafficSample {
  readonly scopes: readonly string[]
  readonly at: Date
  readonly requests: number
  readonly bytes: number
}

/** The hour a time falls in, as kept in `node_traffic`: `2026-11-22T05`, UTC. */
export const hourOf = (at: Date): string => at.toISOString().slice(0, 13)

/** Rows per statement: 4 parameters each, well below every dialect's limit. */
const rowsPerStatement = 250

/** Adds samples to the hours they fall in: one row per scope and hour, however many samples share it. */
export async function recordTraffic(db: Db, samples: readonly TrafficSample[]): Promise<void> {
  // Summed first: one statement may not touch a row twice (Postgres refuses such an upsert).
  const sums = new Map<string, NodeTrafficTable>()
  for (const { scopes, at, requests, bytes } of samples) {
    const hour = hourOf(at)
    for (const scope_key of scopes) {
      const sum = sums.get(`${scope_key}|${hour}`) ?? { scope_key, hour, requests: 0, bytes: 0 }
      sum.requests += requests
      sum.bytes += bytes
      sums.set(`${scope_key}|${hour}`, sum)
    }
  }
  const rows = [...sums.values()]
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    await db
      .withTables<NodesTables>()
      .insertInto('node_traffic')
      .values(rows.slice(start, start + rowsPerStatement))
      .onConflict((conflict) =>
        conflict.columns(['scope_key', 'hour']).doUpdateSet({
          requests: sql`node_traffic.requests + excluded.requests`,
          bytes: sql`node_traffic.bytes + excluded.bytes`,
        }),
      )
      .execute()
  }
}

const Traffic = t.Object({ requests: t.Integer({ minimum: 0 }), bytes: t.Integer({ minimum: 0 }) })

const RecentTraffic = t.Object(
  { last24h: Traffic, last7d: Traffic },
  { description: 'Requests and bytes nodes reported for the sites in view (`POST /nodes/{id}/metrics`).' },
)

/** The `traffic` section of `GET /usage`. */
export type RecentTraffic = Static<typeof RecentTraffic>

/** Recent traffic over some usage scopes. */
async function recentTraffic(db: Db, scopes: readonly string[]): Promise<RecentTraffic> {
  if (scopes.length === 0) return { last24h: { requests: 0, bytes: 0 }, last7d: { requests: 0, bytes: 0 } }
  const now = Date.now()
  // Hours after these: the current hour and the 23 (or 167) before it.
  const day = hourOf(new Date(now - 24 * 3_600_000))
  const week = hourOf(new Date(now - 7 * 24 * 3_600_000))
  const inDay = (column: 'requests' | 'bytes') =>
    sql<number>`coalesce(sum(case when hour > ${day} then ${sql.ref(column)} else 0 end), 0)`
  const row = await db
    .withTables<NodesTables>()
    .selectFrom('node_traffic')
    .select([
      inDay('requests').as('dayRequests'),
      inDay('bytes').as('dayBytes'),
      sql<number>`coalesce(sum(requests), 0)`.as('weekRequests'),
      sql<number>`coalesce(sum(bytes), 0)`.as('weekBytes'),
    ])
    .where('scope_key', 'in', scopes)
    .where('hour', '>', week)
    .executeTakeFirst()
  return {
    last24h: { requests: Number(row?.dayRequests ?? 0), bytes: Number(row?.dayBytes ?? 0) },
    last7d: { requests: Number(row?.weekRequests ?? 0), bytes: Number(row?.weekBytes ?? 0) },
  }
}

/** The `traffic` section of `GET /usage`. */
export const trafficSection: UsageSection = { name: 'traffic', schema: RecentTraffic, read: recentTraffic }
