// A bar chart drawn as SVG (no chart library: a few dozen bars do not need one). It carries a text summary and a
// data table for screen readers.

export interface Bar {
  readonly label: string
  readonly value: number
}

export function BarChart({
  title,
  bars,
  format = (value) => value.toLocaleString(),
}: {
  title: string
  bars: readonly Bar[]
  format?: (value: number) => string
}) {
  const width = 480
  // Room either side for the first and last labels, which are centred under their bars.
  const gutter = 24
  const height = 160
  const top = 10
  const bottom = 24
  const max = Math.max(1, ...bars.map((bar) => bar.value))
  const slot = (width - 2 * gutter) / Math.max(1, bars.length)
  const total = bars.reduce((sum, bar) => sum + bar.value, 0)
  const labelEvery = Math.ceil(bars.length / 8)
  return (
    <figure className="chart-figure">
      <figcaption>
        <strong>{title}</strong> <span className="muted">— {format(total)} in all</span>
      </figcaption>
      <svg
        className="chart"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${title}: ${format(total)} in all`}
      >
        <line className="axis" x1={0} x2={width} y1={height - bottom} y2={height - bottom} />
        {bars.map((bar, index) => {
          const barHeight = ((height - top - bottom) * bar.value) / max
          return (
            <g key={bar.label}>
              <rect
                className="bar"
                x={gutter + index * slot + slot * 0.15}
                y={height - bottom - barHeight}
                width={slot * 0.7}
                height={barHeight}
              >
                <title>{`${bar.label}: ${format(bar.value)}`}</title>
              </rect>
              {index % labelEvery === 0 ? (
                <text x={gutter + index * slot + slot / 2} y={height - 8} textAnchor="middle">
                  {bar.label}
                </text>
              ) : null}
            </g>
          )
        })}
      </svg>
      <details>
        <summary>Data</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Period</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar) => (
              <tr key={bar.label}>
                <td>{bar.label}</td>
                <td>{format(bar.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  )
}
