// Failed logins counted once for every panel instance on one PostgreSQL store, so an attacker spreading guesses
// across the instances behind a balancer gets the allowance of one panel, not one per instance.

import { sql } from 'kysely'
import {
  createLoginThrottle,
  type LoginThrottlePolicy,
  loginCounters,
  throttleDelayMs,
} from '../auth/login-throttle.ts'
import type { Store } from '../store/store.ts'

/** The outcome of asking to try a password, whichever throttle answered. */
export type ThrottledAttempt =
  | { readonly refuseForSeconds: number }
  | {
      /** Wait this long before answering. */
      readonly delayMs: number
      /** The password was right: give the attempt back (the account's failures are forgotten). Await it. */
      succeeded(): void | Promise<void>
    }

/**
 * Slows, then refuses, repeated failed logins per account and per address. In memory on SQLite (one process per
 * store: `createLoginThrottle`), shared through PostgreSQL (`createSharedLoginThrottle`); only the shared one
 * answers with promises, and the identity routes await both.
 */
export interface LoginThrottling {
  /**
   * Asks to try a password for `subject` (an e-mail or `user:<id>`) from `address`; counts it at once. `now`
   * replaces the clock (tests).
   */
  attempt(subject: string, address: string | null, now?: number): ThrottledAttempt | Promise<ThrottledAttempt>
}

/** The database's clock in ms, or the caller's `now` (tests): every instance agrees when a window closes. */
const clock = (now: number | null) =>
  sql<number>`coalesce(${now}::bigint, (extract(epoch from statement_timestamp()) * 1000)::bigint)`

/**
 * The throttle of panels sharing one PostgreSQL store, in `rate_windows` (kernel migration 0009) under keys of
 * their own (`failed-login:…`); the shared rate limiter prunes closed windows of both. As the in-memory one, each
 * attempt is counted before the password is checked, and one that is refused counts nowhere.
 */
export function createSharedLoginThrottle(store: Store, policy: LoginThrottlePolicy) {
  return {
    async attempt(subject: string, address: string | null, now?: number): Promise<ThrottledAttempt> {
      const counters = loginCounters(subject, address, policy).map((counter) => ({
        ...counter,
        key: `failed-login:${counter.key}`,
      }))
      // Sorted, so two attempts sharing a key lock their rows in the same order and never deadlock.
      const keys = counters.map((counter) => counter.key).sort()
      const pairKey = counters.find((counter) => counter.kind === 'pair')?.key ?? ''
      const at = clock(now ?? null)
      return store.transaction(
        async (trx) => {
          // Locks the counters (made, or opened again if their window closed) until the attempt is counted:
          // attempts at once for one account or address wait for each other instead of reading the same count.
          const { rows } = await sql<{ key: string; used: number; reset_ms: number }>`
            insert into rate_windows as w (key, resets_at, used)
            values ${sql.join(keys.map((key) => sql`(${key}, ${at} + ${policy.windowMs}::bigint, 0)`))}
            on conflict (key) do update set
              used = case when w.resets_at <= ${at} then 0 else w.used end,
              resets_at = case when w.resets_at <= ${at} then excluded.resets_at else w.resets_at end
            returning w.key as key, w.used as used, w.resets_at - ${at} as reset_ms`.execute(trx)
          const counted = counters.map((counter) => {
            const row = rows.find((candidate) => candidate.key === counter.key)
            return {
              ...counter,
              failures: Number(row?.used ?? 0),
              resetMs: Number(row?.reset_ms ?? policy.windowMs),
            }
          })
          const full = counted.filter((counter) => counter.failures >= counter.limit)
          if (full.length > 0) {
            const resetMs = Math.max(...full.map((counter) => counter.resetMs))
            return { refuseForSeconds: Math.max(1, Math.ceil(resetMs / 1000)) }
          }
          // Slowed by this address's failures, never by others' (they would slow the account's owner).
          const failures = Math.max(
            ...counted.filter((counter) => counter.kind !== 'account').map((counter) => counter.failures),
          )
          await sql`update rate_windows set used = used + 1 where key in (${sql.join(keys)})`.execute(trx)
          const others = keys.filter((key) => key !== pairKey)
          return {
            delayMs: throttleDelayMs(failures, policy),
            async succeeded() {
              // As the in-memory throttle: this address's failures for the account forgotten, the attempt given
              // back elsewhere.
              await sql`with forgotten as (delete from rate_windows where key = ${pairKey})
                update rate_windows set used = greatest(used - 1, 0) where key in (${sql.join(others)})`.execute(
                store.db,
              )
            },
          }
        },
        { isolation: 'read committed' },
      )
    },
  } satisfies LoginThrottling
}

/**
 * The throttle a panel on `store` gets: shared through PostgreSQL, where several instances may serve one store; in
 * memory on SQLite, whose documented deployment is one process per store.
 */
export function loginThrottleFor(store: Store, policy: LoginThrottlePolicy): LoginThrottling {
  return store.dialect === 'postgres' ? createSharedLoginThrottle(store, policy) : createLoginThrottle(policy)
}
