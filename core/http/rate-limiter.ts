// Rate limits per credential (per address without one), in one-minute windows per key, with the IETF draft's headers.

import { bearerTokenOf } from '../auth/authenticate.ts'
import { sessionCookieOf } from '../auth/sessions.ts'
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

/**
 * An in-process limiter. The key is the credential itself (a hash of the bearer token, the session id) or, for
 * anonymous calls, the client address; a request with neither is not limited here (hosts that know no address).
 * Several instances each count on their own (documented for operators).
 */
export function createRateLimiter(policy: RateLimitPolicy) {
  // Each key's window opens with its first request, so no key gets a fresh allowance mid-burst at a wall-clock
  // minute boundary (a fixed global window let 2 × quota through across one, and made tests flaky near it).
  const windows = new Map<string, { start: number; used: number }>()
  let lastSweep = 0
  const defaultPolicyHeader = `"default";q=${policy.perMinute};w=60`
  const loginPolicyHeader = `"login";q=${policy.loginPerMinute};w=60`

  function keyOf(request: Request, address: string | null): string | null {
    const token = bearerTokenOf(request)
    if (token) return `token:${Bun.hash(token).toString(36)}`
    const session = sessionCookieOf(request)?.split('.')[0]
    if (session) return `session:${session}`
    return address === null ? null : `address:${address}`
  }

  return {
    /** Counts `request` against its allowance (`login` uses the stricter one). */
    take(request: Request, address: string | null, login: boolean, now = Date.now()): RateDecision | null {
      const key = login ? (address === null ? null : `login:${address}`) : keyOf(request, address)
      if (key === null) return null
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
