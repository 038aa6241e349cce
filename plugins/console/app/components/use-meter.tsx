// A use against its limit, in a table's cell: a dash where there is no limit, else a meter whose text and label say
// both figures. A limit of zero still draws a bar (full), and a use past its limit a full one (as the browser would).

export function UseMeter({
  label,
  used,
  limit,
  format = String,
  high,
}: {
  /** What is used, named in the meter's label (`Memory: 900 MB of 1,024 MB`). */
  label: string
  used: number
  /** Null: no limit. */
  limit: number | null
  format?: (value: number) => string
  /** The share of the limit past which the bar warns (0.9: the last tenth); none, it never does. */
  high?: number
}) {
  if (limit === null) return '—'
  const max = Math.max(limit, 1)
  return (
    <meter
      min={0}
      max={max}
      high={high === undefined ? undefined : max * high}
      value={Math.min(used, max)}
      aria-label={`${label}: ${format(used)} of ${format(limit)}`}
    >
      {format(used)} of {format(limit)}
    </meter>
  )
}
