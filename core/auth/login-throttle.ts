// Slows, then refuses, repeated failed logins, per account and per address, so passwords cannot be guessed at speed.

/** Throttle policy. */
export interface LoginThrottlePolicy {
  /** Failures per account within the window before refusing. Default 5. */
  readonly perAccount: number
  /** Failures per client address within the window before refusing. Default 20. */
  readonly perAddress: number
  /** The window, in ms. Default 15 minutes. */
  readonly windowMs: number
  /** Added delay per failure beyond the first, in ms, capped at four times itself. Default 250. */
  readonly stepDelayMs: number
}

export const defaultLoginThrottle: LoginThrottlePolicy = {
  perAccount: 5,
  perAddress: 20,
  windowMs: 15 * 60_000,
  stepDelayMs: 250,
}

interface Counter {
  failures: number
  since: number
}

/**
 * An in-process login throttle. Kept in memory: it protects one instance; a deployment of several instances
 * behind a balancer multiplies the allowance by the instance count (documented for operators).
 */
export function createLoginThrottle(policy: LoginThrottlePolicy = defaultLoginThrottle) {
  const counters = new Map<string, Counter>()
  /** Forgets counters whose window has passed, so random e-mails cannot grow the map for ever. */
  const sweep = (now: number) => {
    for (const [key, counter] of counters) if (now - counter.since >= policy.windowMs) counters.delete(key)
  }
  let lastSweep = 0
  const current = (key: string, now: number): Counter => {
    if (now - lastSweep > 60_000 || counters.size > 100_000) {
      sweep(now)
      lastSweep = now
    }
    const counter = counters.get(key)
    if (counter && now - counter.since < policy.windowMs) return counter
    const fresh = { failures: 0, since: now }
    counters.set(key, fresh)
    return fresh
  }
  const keys = (email: string, address: string | null) => ({
    account: `account:${email}`,
    address: `address:${address ?? 'unknown'}`,
  })

  return {
    /** Seconds to wait when this login must be refused now, else the delay (ms) to apply before answering. */
    check(
      email: string,
      address: string | null,
      now = Date.now(),
    ): { refuseForSeconds: number } | { delayMs: number } {
      const { account, address: byAddress } = keys(email, address)
      const a = current(account, now)
      const b = current(byAddress, now)
      if (a.failures >= policy.perAccount || b.failures >= policy.perAddress) {
        const until =
          Math.max(
            a.failures >= policy.perAccount ? a.since : 0,
            b.failures >= policy.perAddress ? b.since : 0,
          ) + policy.windowMs
        return { refuseForSeconds: Math.max(1, Math.ceil((until - now) / 1000)) }
      }
      const failures = Math.max(a.failures, b.failures)
      return { delayMs: Math.min(Math.max(0, failures - 1) * policy.stepDelayMs, policy.stepDelayMs * 4) }
    },
    /** Counts a failed attempt. */
    failed(email: string, address: string | null, now = Date.now()): void {
      const { account, address: byAddress } = keys(email, address)
      current(account, now).failures++
      current(byAddress, now).failures++
    },
    /** A successful login clears the account's failures (not the address's). */
    succeeded(email: string): void {
      counters.delete(keys(email, null).account)
    },
  }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
