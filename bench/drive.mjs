// Load driver, run by Node in its own process: autocannon against one URL, results as one JSON line on stdout.
// Usage: node bench/drive.mjs '{"url":"…","headers":{},"method":"GET","seconds":5,"connections":16,"body":"…","uniqueSites":"cus_…"}'

import autocannon from 'autocannon'

const config = JSON.parse(process.argv[2])
let n = 0
const result = await autocannon({
  url: config.url,
  method: config.method ?? 'GET',
  headers: config.headers ?? {},
  connections: config.connections ?? 16,
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
})
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
