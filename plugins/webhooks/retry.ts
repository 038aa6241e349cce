// When a failed delivery is tried again: a schedule of delays over about three days, each with jitter.

/**
 * The default delays after the 1st, 2nd, ... failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and
 * 24 h, so ten attempts over about three days; a delivery still failing after the last is `failed`.
 */
export const defaultRetryScheduleMs: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
]

/** How far a delay may move either way, so endpoints that failed together are not retried together. */
export const retryJitter = 0.1

/**
 * The delay before the next attempt after `failedAttempts` failures (1-based), within ±10 % of the schedule's
 * entry; null when the schedule is exhausted and the delivery has failed for good.
 */
export function retryDelayMs(
  schedule: readonly number[],
  failedAttempts: number,
  random: () => number = Math.random,
): number | null {
  const base = schedule[failedAttempts - 1]
  if (base === undefined) return null
  return Math.round(base * (1 - retryJitter + 2 * retryJitter * random()))
}
