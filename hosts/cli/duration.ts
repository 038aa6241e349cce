// Durations on the command line: `30d`, `12h`, `90m`.

const units: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000 }

/** Milliseconds of a duration like `30d`, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = /^([1-9][0-9]{0,5})([dhm])$/.exec(text.trim())
  if (!match) return null
  return Number(match[1]) * (units[match[2] ?? ''] ?? 0)
}
