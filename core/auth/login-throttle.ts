// Slows, then refuses, repeated failed logins, per account and address and per address, so passwords cannot be
// guessed at speed, and failures from one address never lock an account for the others.

/** Throttle policy. */
export interface LoginThrottlePolicy {
  /**
   * Failures for one account from one client address within the window before that address is refused for it.
   * Default 5. Another address (its owner signing in) is not refused: failures from one address, a site's code on a
   * node say, cannot lock the account out.
   */
  readonly perAccount: number
  /** Failures per client address, whatever the accounts, within the window before refusing. Default 20. */
  readonly perAddress: number
  /**
   * Failures for one account from every address together within the window before refusing it anywhere: the bound
   * on guessing spread over many addresses, out of reach of any one of them. Default 100.
   */
  readonly perAccountAnywhere: number
  /** The window, in ms. Default 15 minutes. */
  readonly windowMs: number
  /** Added delay per failure beyond the first, in ms, capped at four times itself. Default 250. */
  readonly stepDelayMs: number
}

export const defaultLoginThrottle: LoginThrottlePolicy = {
  perAccount: 5,
  perAddress: 20,
  perAccountAnywhere: 100,
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

/** The counters one attempt counts against, by the limit each has: its names are the keys both throttles use. */
export function loginCounters(
  subject: string,
  address: string | null,
  policy: LoginThrottlePolicy,
): { readonly key: string; readonly limit: number; readonly kind: 'pair' | 'address' | 'account' }[] {
  return [
    // Without a known client address (a host that knows none) the unknown address is one more address.
    { key: `account:${subject}|${address ?? '-'}`, limit: policy.perAccount, kind: 'pair' },
    ...(address === null
      ? []
      : [{ key: `address:${address}`, limit: policy.perAddress, kind: 'address' as const }]),
    { key: `account:${subject}`, limit: policy.perAccountAnywhere, kind: 'account' },
  ]
}

/** The delay before answering an attempt after `failures` failures: none for the first, capped at four steps. */
export function throttleDelayMs(failures: number, policy: LoginThrottlePolicy): number {
  return Math.min(Math.max(0, failures - 1) * policy.stepDelayMs, policy.stepDelayMs * 4)
}

/**
 * An in-process login throttle. Each attempt is counted as a failure *before* the password is checked and given
 * back on success, so parallel guesses cannot all slip through before the first failure is counted. Kept in
 * memory, for the SQLite store's one instance; on PostgreSQL the instances share one count instead
 * (`loginThrottleFor`). Counted per account and address, per address, and per account from every address at a
 * higher bound (see {@link LoginThrottlePolicy}).
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
      const counted = loginCounters(subject, address, policy).map((counter) => ({
        ...counter,
        counter: current(counter.key, now),
      }))
      const full = counted.filter(({ counter, limit }) => counter.failures >= limit)
      if (full.length > 0) {
        const since = Math.max(...full.map(({ counter }) => counter.since))
        return { refuseForSeconds: Math.max(1, Math.ceil((since + policy.windowMs - now) / 1000)) }
      }
      // Slowed by this address's failures, never by others' (they would slow the account's owner).
      const failures = Math.max(
        ...counted.filter(({ kind }) => kind !== 'account').map(({ counter }) => counter.failures),
      )
      for (const { counter } of counted) counter.failures++
      return {
        delayMs: throttleDelayMs(failures, policy),
        succeeded() {
          // The right password from this address forgets its failures for the account; elsewhere the attempt is
          // given back, so guesses from other addresses are not forgotten with it.
          for (const { key, kind, counter } of counted) {
            if (kind === 'pair') counters.delete(key)
            else counter.failures = Math.max(0, counter.failures - 1)
          }
        },
      }
    },
  }
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>
