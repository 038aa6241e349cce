// Failed logins counted once for every panel instance on one PostgreSQL store, so an attacker spreading guesses
// across the instances behind a balancer gets the allowance of one panel, not one per instance.

import { sql } from 'kysely'
import { createLoginThrottle, type LoginThrottlePolicy } from '../auth/login-throttle.ts'
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
      const accountKey = `failed-login:account:${subject}`
      const addressKey = address === null ? null : `failed-login:address:${address}`
      // Sorted, so two attempts sharing a key lock their rows in the same order and never deadlock.
      const keys = addressKey === null ? [accountKey] : [accountKey, addressKey].sort()
      const at = clock(now ?? null)
      return store.transaction(
        async (trx) => {
          // Locks both counters (made, or opened again if their window closed) until the attempt is counted:
          // attempts at once for one account or address wait for each other instead of reading the same count.
          const { rows } = await sql<{ key: string; used: number; reset_ms: number }>`
            insert into rate_windows as w (key, resets_at, used)
            values ${sql.join(keys.map((key) => sql`(${key}, ${at} + ${policy.windowMs}::bigint, 0)`))}
            on conflict (key) do update set
              used = case when w.resets_at <= ${at} then 0 else w.used end,
              resets_at = case when w.resets_at <= ${at} then excluded.resets_at else w.resets_at end
            returning w.key as key, w.used as used, w.resets_at - ${at} as reset_ms`.execute(trx)
          const counter = (key: string | null) => {
            const row = rows.find((candidate) => candidate.key === key)
            return row ? { failures: Number(row.used), resetMs: Number(row.reset_ms) } : null
          }
          const account = counter(accountKey) ?? { failures: 0, resetMs: policy.windowMs }
          const byAddress = counter(addressKey)
          const accountFull = account.failures >= policy.perAccount
          const addressFull = byAddress !== null && byAddress.failures >= policy.perAddress
          if (accountFull || addressFull) {
            const resetMs = Math.max(
              accountFull ? account.resetMs : 0,
              addressFull && byAddress ? byAddress.resetMs : 0,
            )
            return { refuseForSeconds: Math.max(1, Math.ceil(resetMs / 1000)) }
          }
          const failures = Math.max(account.failures, byAddress?.failures ?? 0)
          await sql`update rate_windows set used = used + 1 where key in (${sql.join(keys)})`.execute(trx)
          return {
            delayMs: Math.min(Math.max(0, failures - 1) * policy.stepDelayMs, policy.stepDelayMs * 4),
            async succeeded() {
              await sql`with forgotten as (delete from rate_windows where key = ${accountKey})
                update rate_windows set used = greatest(used - 1, 0) where key = ${addressKey}`.execute(
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
