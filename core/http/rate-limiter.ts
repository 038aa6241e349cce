// Rate limits per authenticated credential, per address otherwise, in one-minute windows per key, with the IETF
// draft's headers.

import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'

/** Rate limit policy. */
export interface RateLimitPolicy {
  /** Requests a minute per token, session or (anonymous) address. Default 1,200 (`RATE_LIMIT_PER_MINUTE`). */
  readonly perMinute: number
  /** Login attempts a minute per address or e-mail-less client. Default 30. */
  readonly loginPerMinute: number
}

export const defaultRateLimits: RateLimitPolicy = { perMinute: 1200, loginPerMinute: 30 }

const windowMs = 60_000

/** What one request used of its allowance. */
export interface RateDecision {
  readonly headers: Readonly<Record<string, string>>
  /** Set when the request is over the limit: the 429 to answer. */
  readonly refusal: Problem | null
}

/** Whose allowance a request is charged to. */
export type RateKey =
  /** An authenticated credential (`token:<id>`, `session:<id>`): only once authentication succeeded. */
  | { readonly credential: string }
  /** A client address: anonymous requests, and those whose credential failed (so junk tokens cannot dodge it). */
  | { readonly address: string | null }
  /** The strict allowance of login, per address. */
  | { readonly login: string | null }

/**
 * An in-process limiter, in one-minute windows per key. A request with no address (a host that knows none) is not
 * limited by address. Several instances each count on their own (documented for operators).
 */
export function createRateLimiter(policy: RateLimitPolicy) {
  // Each key's window opens with its first request, so no key gets a fresh allowance mid-burst at a wall-clock
  // minute boundary (a fixed global window let 2 × quota through across one, and made tests flaky near it).
  const windows = new Map<string, { start: number; used: number }>()
  let lastSweep = 0
  const defaultPolicyHeader = `"default";q=${policy.perMinute};w=60`
  const loginPolicyHeader = `"login";q=${policy.loginPerMinute};w=60`

  function keyOf(key: RateKey): string | null {
    if ('credential' in key) return key.credential
    if ('login' in key) return key.login === null ? null : `login:${key.login}`
    return key.address === null ? null : `address:${key.address}`
  }

  return {
    /** Counts one request against the allowance of `rateKey`; null when nothing limits it. */
    take(rateKey: RateKey, now = Date.now()): RateDecision | null {
      const key = keyOf(rateKey)
      if (key === null) return null
      const login = 'login' in rateKey
      if (now - lastSweep >= windowMs) {
        // Once a minute, forget keys whose window has closed: memory follows the active callers only.
        lastSweep = now
        for (const [old, window] of windows) if (now - window.start >= windowMs) windows.delete(old)
      }
      let window = windows.get(key)
      if (!window || now - window.start >= windowMs) {
        window = { start: now, used: 0 }
        windows.set(key, window)
      }
      window.used += 1
      const used = window.used
      const quota = login ? policy.loginPerMinute : policy.perMinute
      const reset = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000))
      const name = login ? 'login' : 'default'
      const headers = {
        'ratelimit-policy': login ? loginPolicyHeader : defaultPolicyHeader,
        ratelimit: `"${name}";r=${Math.max(0, quota - used)};t=${reset}`,
      }
      if (used <= quota) return { headers, refusal: null }
      return {
        headers,
        refusal: new Problem(kernelProblems.rate_limited, {
          detail: `More than ${quota} requests a minute; wait ${reset} s.`,
          headers: { ...headers, 'retry-after': String(reset) },
          extensions: { retryAfter: reset },
        }),
      }
    },
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>
