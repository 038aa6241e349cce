// Rate limits per authenticated credential, per address otherwise, in one-minute windows per key, with the IETF
// draft's headers.

import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

/** Rate limit policy. */
export interface RateLimitPolicy {
  /**
   * Requests a minute per token, session, route credential that names its own key (a node's agent) or (anonymous)
   * address. Default 1,200 (`RATE_LIMIT_PER_MINUTE`).
   */
  readonly perMinute: number
  /** Login attempts a minute per address or e-mail-less client. Default 30. */
  readonly loginPerMinute: number
}

export const defaultRateLimits: RateLimitPolicy = { perMinute: 1200, loginPerMinute: 30 }

/** The length of every rate window, in ms. */
export const rateWindowMs = 60_000

/** What one request used of its allowance. */
export interface RateDecision {
  readonly headers: Readonly<Record<string, string>>
  /** Set when the request is over the limit: the 429 to answer. */
  readonly refusal: Problem | null
}

/** Whose allowance a request is charged to. */
export type RateKey =
  /**
   * An authenticated credential (`token:<id>`, `session:<id>`, or a route credential's own key,
   * `route:<plugin>:<key>`): only once authentication succeeded.
   */
  | { readonly credential: string }
  /** A client address: anonymous requests, and those whose credential failed (so junk tokens cannot dodge it). */
  | { readonly address: string | null }
  /** The strict allowance of login, per address. */
  | { readonly login: string | null }

/**
 * Counts requests against allowances. The panel gets the one its store calls for (`rateLimiterFor` in
 * `shared-rate-limiter.ts`): in memory on SQLite (one process per store), shared through PostgreSQL where several
 * instances serve one store. Only the PostgreSQL one answers with a promise, so the SQLite path never awaits.
 */
export interface RateLimiter {
  /**
   * Counts one request against the allowance of `key`; null when nothing limits it (no address known). `now`
   * replaces the clock (tests).
   */
  take(key: RateKey, now?: number): RateDecision | null | Promise<RateDecision | null>
}

/** The storage key of an allowance, or null when nothing limits it. Both limiters use the same keys. */
export function rateKeyOf(key: RateKey): string | null {
  if ('credential' in key) return key.credential
  if ('login' in key) return key.login === null ? null : `login:${key.login}`
  return key.address === null ? null : `address:${key.address}`
}

/** The policy headers of both allowances, made once per limiter. */
export function policyHeaders(policy: RateLimitPolicy) {
  return {
    default: `"default";q=${policy.perMinute};w=60`,
    login: `"login";q=${policy.loginPerMinute};w=60`,
  }
}

/**
 * The headers (and past the allowance, the 429) of a request that is the `used`th of its window, which closes in
 * `resetMs`: the same whichever limiter counted it.
 */
export function rateDecision(
  policy: RateLimitPolicy,
  headers: ReturnType<typeof policyHeaders>,
  login: boolean,
  used: number,
  resetMs: number,
): RateDecision {
  const quota = login ? policy.loginPerMinute : policy.perMinute
  const reset = Math.max(1, Math.ceil(resetMs / 1000))
  const name = login ? 'login' : 'default'
  const rendered = {
    'ratelimit-policy': login ? headers.login : headers.default,
    ratelimit: `"${name}";r=${Math.max(0, quota - used)};t=${reset}`,
  }
  if (used <= quota) return { headers: rendered, refusal: null }
  return {
    headers: rendered,
    refusal: new Problem(kernelProblems.rate_limited, {
      detail: `More than ${quota} requests a minute; wait ${reset} s.`,
      headers: { ...rendered, 'retry-after': String(reset) },
      extensions: { retryAfter: reset },
    }),
  }
}

/**
 * The in-process limiter, in one-minute windows per key: the SQLite store's (one process per store). A request with
 * no address (a host that knows none) is not limited by address.
 */
export function createRateLimiter(policy: RateLimitPolicy) {
  // Each key's window opens with its first request, so no key gets a fresh allowance mid-burst at a wall-clock
  // minute boundary (a fixed global window let 2 × quota through across one, and made tests flaky near it).
  const windows = new Map<string, { start: number; used: number }>()
  let lastSweep = 0
  const headers = policyHeaders(policy)

  return {
    /** Counts one request against the allowance of `rateKey`; null when nothing limits it. */
    take(rateKey: RateKey, now = Date.now()): RateDecision | null {
      const key = rateKeyOf(rateKey)
      if (key === null) return null
      if (now - lastSweep >= rateWindowMs) {
        // Once a minute, forget keys whose window has closed: memory follows the active callers only.
        lastSweep = now
        for (const [old, window] of windows) if (now - window.start >= rateWindowMs) windows.delete(old)
      }
      let window = windows.get(key)
      if (!window || now - window.start >= rateWindowMs) {
        window = { start: now, used: 0 }
        windows.set(key, window)
      }
      window.used += 1
      return rateDecision(policy, headers, 'login' in rateKey, window.used, window.start + rateWindowMs - now)
    },
  } satisfies RateLimiter
}
