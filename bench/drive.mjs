// Load driver, run by Node in its own process: autocannon against one URL, results as one JSON line on stdout.
// Usage: node bench/drive.mjs '{"url":"…","headers":{},"method":"GET","seconds":5,"connections":16,"body":"…","uniqueSites":"cus_…"}'
// With `"urls": ["…", "…"]` instead of `url`, the connections are split evenly between the URLs (round robin over
// the servers, as a load balancer spreading connections would), all driven from this process at once; the figures
// are of all of them together.

import autocannon from 'autocannon'

const config = JSON.parse(process.argv[2])
let n = 0

/** Autocannon's options for `url` with `connections`. */
function options(url, connections, extra = {}) {
  return {
    url,
    method: config.method ?? 'GET',
    headers: config.headers ?? {},
    connections,
    duration: config.seconds ?? 5,
    requests: config.uniqueSites
      ? [
          {
            setupRequest: (request) => {
              n++
              const body = {
                customerId: config.uniqueSites,
                name: `Load ${n}`,
                type: 'wordpress',
                domain: `load-${process.pid}-${n}.bench.example`,
              }
              return {
                ...request,
                body: JSON.stringify(body),
                headers: { ...request.headers, 'idempotency-key': `load-${process.pid}-${n}` },
              }
            },
          },
        ]
      : undefined,
    ...extra,
  }
}

const connections = config.connections ?? 16
if (!config.urls || config.urls.length === 1) {
  const result = await autocannon(options(config.url ?? config.urls[0], connections))
  console.log(
    JSON.stringify({
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      mean: result.latency.average,
      errors: result.errors,
      non2xx: result.non2xx,
      total: result.requests.total,
    }),
  )
} else {
  const urls = config.urls
  // Unaggregated results, so the latencies of every URL go into one histogram below.
  const results = await Promise.all(
    urls.map((url, i) =>
      autocannon(
        options(url, Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0), {
          skipAggregateResult: true,
        }),
      ),
    ),
  )
  const all = autocannon.aggregateResult(results, { url: urls[0], connections })
  const total = results.reduce((sum, result) => sum + result.totalCompletedRequests, 0)
  console.log(
    JSON.stringify({
      requestsPerSecond: total / (config.seconds ?? 5),
      p50: all.latency.p50,
      p99: all.latency.p99,
      mean: all.latency.average,
      errors: all.errors,
      non2xx: all.non2xx,
      total,
    }),
  )
}
