// A token's expiry as the form asks for it: a day. The API wants a full time, at most `maxDays` from now.

const dayMs = 86_400_000

/** `YYYY-MM-DD` of a time in the reader's zone (what a date input holds). */
export function localDate(time: number): string {
  const date = new Date(time)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** The date input's default and bounds for a lifetime policy. */
export function expiryBounds(defaultDays: number, maxDays: number, now = Date.now()) {
  return {
    defaultValue: localDate(now + defaultDays * dayMs),
    min: localDate(now),
    max: localDate(now + maxDays * dayMs),
  }
}

/**
 * The ISO time a chosen day means: the end of that day in the reader's zone, but never past the policy's longest
 * lifetime (so the last day offered is accepted). Undefined for an empty field (the API's default lifetime);
 * text that is no date passes on as is, for the API to explain.
 */
export function expiryOf(day: string | undefined, maxDays: number, now = Date.now()): string | undefined {
  if (!day) return undefined
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!match) return day
  const end = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59).getTime()
  return new Date(Math.min(end, now + maxDays * dayMs - 60_000)).toISOString()
}
