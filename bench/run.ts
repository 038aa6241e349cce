// `npm run bench`: seeds 100k customers and 1M sites, then drives the panel and a bare Bun.serve ceiling on the same
// database from a second process (autocannon under Node) and prints throughput, latency, CPU a request and ratios.
// No pass/fail: the figures go into docs/performance.md.
//
// Settings (environment):
// - `BENCH_STORE`: `sqlite` (the default without DATABASE_URL) seeds the embedded store in a temporary DATA_DIR and
//   runs one panel process (bench/run-sqlite.ts). `postgres` (the default with DATABASE_URL) seeds a PostgreSQL
//   database made for the run and dropped after it, and runs two panel instances on it, one driven alone and then
//   both, beside the ceiling on PostgreSQL (bench/run-postgres.ts).
// - `DATABASE_URL`: the PostgreSQL server to use, default postgres://postgres@127.0.0.1:5432/postgres. The bench
//   only connects to the database it names; it makes its own, `BENCH_DATABASE` (default `plinth_bench`), dropping
//   one left from an earlier run.
// - `BENCH_SCALE=0.1` runs a tenth of the size for a quick look; `BENCH_SECONDS` (5) is the length of a run,
//   `BENCH_ROUNDS` (2) how many alternating rounds of every run (figures are the medians over them),
//   `BENCH_WARMUP_SECONDS` (2) the warm-up of each server.
// - `PLINTH_CONFIG`, as for `npm start`: the installation's plugins.

import { runPostgres } from './run-postgres.ts'
import { runSqlite } from './run-sqlite.ts'
import { countsAt, type SeedCounts } from './seed-shape.ts'

/** What both engines' runs take. */
export interface BenchOptions {
  readonly counts: SeedCounts
  readonly seconds: number
  readonly rounds: number
  readonly warmUp: number
}

if (import.meta.main) {
  const options: BenchOptions = {
    counts: countsAt(Number(process.env.BENCH_SCALE ?? '1')),
    seconds: Number(process.env.BENCH_SECONDS ?? '5'),
    rounds: Number(process.env.BENCH_ROUNDS ?? '2'),
    warmUp: Number(process.env.BENCH_WARMUP_SECONDS ?? '2'),
  }
  const databaseUrl = process.env.DATABASE_URL || null
  const store = process.env.BENCH_STORE || (databaseUrl ? 'postgres' : 'sqlite')
  if (store === 'sqlite') await runSqlite(options)
  else if (store === 'postgres')
    await runPostgres(
      options,
      databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      process.env.BENCH_DATABASE || 'plinth_bench',
    )
  else {
    console.error(`BENCH_STORE must be sqlite or postgres, not "${store}"`)
    process.exit(2)
  }
}
