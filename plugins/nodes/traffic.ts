// Traffic nodes report, summed per usage scope (`all`, `brand:<id>`, `customer:<id>`) and hour (`2026-11-22T05`),
// and the `traffic` section of `GET /usage` read back from those sums: at most a row per hour of the week, whatever
// the traffic.

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

/** An hour and a day in ms. */
const hourMs = 3_600_000
const dayMs = 24 * hourMs
/** The hours `traffic.hourly` shows: the current one and the 23 before it, as `last24h` sums. */
const hoursShown = 24
/** The UTC days `traffic.daily` shows: today and the 6 before it. */
const daysShown = 7
/** The hours `last7d` sums: the current one and the 167 before it. */
const hoursInWeek = 7 * 24

const Traffic = t.Object({ requests: t.Integer({ minimum: 0 }), bytes: t.Integer({ minimum: 0 }) })

/** Requests and bytes. */
type Traffic = Static<typeof Traffic>

const TrafficBucket = t.Object(
  {
    start: t.String({
      format: 'date-time',
      description:
        'Where the bucket starts, UTC: an hour (`2026-11-22T05:00:00.000Z`) in `hourly`, a day (`2026-11-22T00:00:00.000Z`) in `daily`. It ends where the next one starts.',
    }),
    requests: t.Integer({ minimum: 0, description: 'Requests nodes reported in the bucket.' }),
    bytes: t.Integer({ minimum: 0, description: 'Bytes nodes reported in the bucket.' }),
  },
  {
    $id: 'TrafficBucket',
    description:
      'Traffic of one hour or day. Traffic is kept per UTC hour: a reported sample counts wholly in the hour its `at` falls in (though it covers the time since the node’s previous sample), and each hour counts in the bucket its start falls in. An hour without traffic is zeros.',
  },
)

const RecentTraffic = t.Object(
  {
    last24h: t.Object(Traffic.properties, {
      description:
        'The 24 whole UTC hours ending with the current one (so far): exactly the sum of `hourly`, not a window rolling by the minute.',
    }),
    last7d: t.Object(Traffic.properties, {
      description:
        'The 168 whole UTC hours ending with the current one (so far). It starts 7 days back at the hour after the current one (at 10:15 UTC: 11:00 of the day before `daily[0]`), up to 23 hours before `daily` does: it is the sum of `daily` plus those hours (none while the current hour is 23:00 UTC).',
    }),
    hourly: t.Array(TrafficBucket, {
      minItems: hoursShown,
      maxItems: hoursShown,
      description:
        'For a chart of the last day: 24 buckets, oldest first, one per UTC hour, the last being the current hour (so far).',
    }),
    daily: t.Array(TrafficBucket, {
      minItems: daysShown,
      maxItems: daysShown,
      description:
        'For a chart of the last week: 7 buckets, oldest first, one per UTC day from midnight, the last being today (so far).',
    }),
  },
  {
    description:
      'Requests and bytes nodes reported for the sites in view (`POST /nodes/{id}/metrics`), totals and time series read together. Traffic a node dates ahead of the panel’s clock (it may, by up to 5 minutes) counts once its hour begins.',
  },
)

/** The `traffic` section of `GET /usage`. */
export type RecentTraffic = Static<typeof RecentTraffic>

/** One bucket of `traffic.hourly` or `traffic.daily`. */
export type TrafficBucket = Static<typeof TrafficBucket>

/** Recent traffic over some usage scopes: totals and both series from one query, grouped by hour. */
async function recentTraffic(db: Db, scopes: readonly string[]): Promise<RecentTraffic> {
  // One clock reading for every window, so the totals and the buckets agree.
  const now = Date.now()
  const currentHour = now - (now % hourMs)
  const today = now - (now % dayMs)
  const hourly = Array.from({ length: hoursShown }, (_, i) => currentHour - (hoursShown - 1 - i) * hourMs)
  const daily = Array.from({ length: daysShown }, (_, i) => today - (daysShown - 1 - i) * dayMs)
  // The week's first hour is never after the first day's midnight, so the week's hours hold both series.
  const first = hourOf(new Date(currentHour - (hoursInWeek - 1) * hourMs))
  const last = hourOf(new Date(currentHour))
  const rows =
    scopes.length === 0
      ? []
      : await db
          .withTables<NodesTables>()
          .selectFrom('node_traffic')
          .select(['hour', sql<number>`sum(requests)`.as('requests'), sql<number>`sum(bytes)`.as('bytes')])
          .where('scope_key', 'in', scopes)
          .where('hour', '>=', first)
          .where('hour', '<=', last)
          .groupBy('hour')
          .execute()
  const byHour = new Map<string, Traffic>()
  const byDay = new Map<string, Traffic>()
  const week: Traffic = { requests: 0, bytes: 0 }
  for (const row of rows) {
    // Postgres sums bigints as numeric, which its driver returns as text.
    const requests = Number(row.requests)
    const bytes = Number(row.bytes)
    byHour.set(row.hour, { requests, bytes })
    const day = byDay.get(row.hour.slice(0, 10)) ?? { requests: 0, bytes: 0 }
    day.requests += requests
    day.bytes += bytes
    byDay.set(row.hour.slice(0, 10), day)
    week.requests += requests
    week.bytes += bytes
  }
  const bucket = (start: number, sums: ReadonlyMap<string, Traffic>, key: string): TrafficBucket => ({
    start: new Date(start).toISOString(),
    requests: sums.get(key)?.requests ?? 0,
    bytes: sums.get(key)?.bytes ?? 0,
  })
  const hours = hourly.map((start) => bucket(start, byHour, hourOf(new Date(start))))
  return {
    last24h: {
      requests: hours.reduce((sum, hour) => sum + hour.requests, 0),
      bytes: hours.reduce((sum, hour) => sum + hour.bytes, 0),
    },
    last7d: week,
    hourly: hours,
    daily: daily.map((start) => bucket(start, byDay, new Date(start).toISOString().slice(0, 10))),
  }
}

/** The `traffic` section of `GET /usage`. */
export const trafficSection: UsageSection = { name: 'traffic', schema: RecentTraffic, read: recentTraffic }
