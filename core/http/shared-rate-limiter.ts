// Rate windows shared by every panel instance on one PostgreSQL store: one counter row per key, so a token's
// allowance is one allowance however many instances its requests are spread across.

import { CompiledQuery } from 'kysely'
import type { Logger } from '../plugin/define-plugin.ts'
import type { Db, Store } from '../store/store.ts'
import {
  createRateLimiter,
  policyHeaders,
  type RateDecision,
  type RateKey,
  type RateLimiter,
  type RateLimitPolicy,
  rateDecision,
  rateKeyOf,
  rateWindowMs,
} from './rate-limiter.ts'

/**
 * The database's clock in ms, or the time in parameter `$n` when given (tests). Every instance reads the same clock,
 * so instances whose clocks drift apart still agree when a window closes.
 */
const clock = (n: number) =>
  `coalesce($${n}::bigint, (extract(epoch from statement_timestamp()) * 1000)::bigint)`

/**
 * Counts one request in one round trip, outside any transaction: a key's window opens with its first request (as
 * the in-memory limiter's does) and a closed window starts again at 1. The row lock `on conflict do update` takes
 * orders concurrent requests for one key (on any instance), so no two of them read the same count. Parameters: the
 * key, the time in ms or null (the database's clock), the window in ms. (Exported for bench/rate-limit-cost.ts.)
 */
export const countSql = `insert into rate_windows as w (key, resets_at, used) values ($1, ${clock(2)} + $3::bigint, 1)
  on conflict (key) do update set
    used = case when w.resets_at <= ${clock(2)} then 1 else w.used + 1 end,
    resets_at = case when w.resets_at <= ${clock(2)} then excluded.resets_at else w.resets_at end
  returning w.used as used, w.resets_at - ${clock(2)} as reset_ms`

/** Closed windows, forgotten: rows follow the active callers, as the in-memory limiter's map does. */
const pruneSql = `delete from rate_windows where resets_at <= ${clock(1)}`

/** Removes every closed window (rate limits' and failed logins' alike) from `rate_windows`. */
export async function pruneRateWindows(db: Db, now: number | null = null): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(pruneSql, [now]))
}

/**
 * Counts `key`'s request in the window of `windowMs` it falls in: how many the window has counted with it, and in
 * how many ms it closes. `now` replaces the database's clock (tests).
 */
export async function countInWindow(
  db: Db,
  key: string,
  windowMs: number,
  now: number | null = null,
): Promise<{ used: number; resetMs: number }> {
  const result = await db.executeQuery<{ used: number; reset_ms: number }>(
    CompiledQuery.raw(countSql, [key, now, windowMs]),
  )
  const row = result.rows[0]
  if (!row) throw new Error('rate_windows: the counting upsert returned no row')
  return { used: Number(row.used), resetMs: Number(row.reset_ms) }
}

/**
 * The limiter of panels sharing one PostgreSQL store (table `rate_windows`, kernel migration 0009). Answers with a
 * promise: one statement per charged request, until a key goes over its allowance. A request with no address is
 * not limited by address.
 */
export function createSharedRateLimiter(store: Store, policy: RateLimitPolicy, log: Logger) {
  const headers = policyHeaders(policy)
  /**
   * Keys this instance saw refused, until their window closes (this instance's clock). A count only grows within a
   * window, so every later request in it is refused too: it is answered here, and a flood from one credential or
   * address costs the database one statement per instance and window, not one per request.
   */
  const refusedUntil = new Map<string, number>()
  let lastPrune = 0
  return {
    /** Counts one request against the allowance of `rateKey`; null when nothing limits it. */
    async take(rateKey: RateKey, now?: number): Promise<RateDecision | null> {
      const key = rateKeyOf(rateKey)
      if (key === null) return null
      const login = 'login' in rateKey
      const at = now ?? Date.now()
      if (at - lastPrune >= rateWindowMs) {
        // Once a minute per instance, beside the request (never in its way); a failure only leaves rows for later.
        lastPrune = at
        for (const [old, until] of refusedUntil) if (until <= at) refusedUntil.delete(old)
        pruneRateWindows(store.db, now ?? null).catch((error: unknown) =>
          log.warn({ err: error }, 'pruning closed rate windows failed'),
        )
      }
      const until = refusedUntil.get(key)
      if (until !== undefined && until > at) {
        const quota = login ? policy.loginPerMinute : policy.perMinute
        return rateDecision(policy, headers, login, quota + 1, until - at)
      }
      const { used, resetMs } = await countInWindow(store.db, key, rateWindowMs, now ?? null)
      const decision = rateDecision(policy, headers, login, used, resetMs)
      if (decision.refusal) refusedUntil.set(key, at + resetMs)
      return decision
    },
  } satisfies RateLimiter
}

/**
 * The limiter a panel on `store` gets: shared through PostgreSQL, where several instances may serve one store; in
 * memory on SQLite, whose documented deployment is one process per store (and whose hot path stays synchronous).
 */
export function rateLimiterFor(store: Store, policy: RateLimitPolicy, log: Logger): RateLimiter {
  return store.dialect === 'postgres'
    ? createSharedRateLimiter(store, policy, log)
    : createRateLimiter(policy)
}
