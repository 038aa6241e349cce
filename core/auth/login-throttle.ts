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

/** The outcome of asking to try a password. */
export type LoginAttempt =
  | { readonly refuseForSeconds: number }
  | {
      /** Wait this long before answering. */
      readonly delayMs: number
      /** The password was right: give the attempt back (the account's failures are forgotten). */
      succeeded(): void
    }

/**
 * An in-process login throttle. Each attempt is counted as a failure *before* the password is checked and given
 * back on success, so parallel guesses cannot all slip through before the first failure is counted. Kept in
 * memory, for the SQLite store's one instance; on PostgreSQL the instances share one count instead
 * (`loginThrottleFor`). Without a known client address only the account
 * is counted, so one shared bucket never locks every user out.
 */
export function createLoginThrottle(policy: LoginThrottlePolicy = defaultLoginThrottle) {
  const counters = new Map<string, Counter>()
  let lastSweep = 0
  /** Forgets counters whose window has passed, so random e-mails cannot grow the map for ever. */
  const sweep = (now: number) => {
    if (now - lastSweep < 60_000 && counters.size < 100_000) return
    lastSweep = now
    for (const [key, counter] of counters) if (now - counter.since >= policy.windowMs) counters.delete(key)
  }
  const current = (key: string, now: number): Counter => {
    sweep(now)
    const counter = counters.get(key)
    if (counter && now - counter.since < policy.windowMs) return counter
    const fresh = { failures: 0, since: now }
    counters.set(key, fresh)
    return fresh
  }

  return {
    /** Asks to try a password for `subject` (an e-mail or user id) from `address`; counts it at once. */
    attempt(subject: string, address: string | null, now = Date.now()): LoginAttempt {
      const account = current(`account:${subject}`, now)
      const byAddress = address === null ? null : current(`address:${address}`, now)
      const accountFull = account.failures >= policy.perAccount
      const addressFull = byAddress !== null && byAddress.failures >= policy.perAddress
      if (accountFull || addressFull) {
        const since = Math.max(
          accountFull ? account.since : 0,
          addressFull && byAddress ? byAddress.since : 0,
        )
        return { refuseForSeconds: Math.max(1, Math.ceil((since + policy.windowMs - now) / 1000)) }
      }
      const failures = Math.max(account.failures, byAddress?.failures ?? 0)
      account.failures++
      if (byAddress) byAddress.failures++
      return {
        delayMs: Math.min(Math.max(0, failures - 1) * policy.stepDelayMs, policy.stepDelayMs * 4),
        succeeded() {
          counters.delete(`account:${subject}`)
          if (byAddress) byAddress.failures = Math.max(0, byAddress.failures - 1)
        },
      }
    },
  }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
