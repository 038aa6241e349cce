// `BENCH_STORE=postgres npm run bench`: the same rows seeded into a PostgreSQL database made for the run, then two
// panel instances on it (one driven alone, then both with the connections split between them), a third with the
// in-memory rate limiter (what the shared limiter costs), and the bare ceiling on PostgreSQL, once and twice.
// bench/run.ts describes the settings.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import type { CpuScope } from './cpu.ts'
import {
  type DriveConfig,
  deepCursor,
  drained,
  measure,
  peakMiB,
  Rounds,
  ratio,
  row,
  type Started,
  start,
  stop,
} from './load.ts'
import type { BenchOptions } from './run.ts'
import { freshDatabase, seedPostgres } from './seed-postgres.ts'
import { printStatementCounts } from './statements.ts'

/** Who serves a run: one panel instance, both, the one with the in-memory limiter, one ceiling or two. */
type Target = 'one' | 'two' | 'local' | 'ceiling' | 'ceilings'
type Run = `${'first' | 'deep' | 'usage' | 'usageAlone' | 'create'}:${Target}`

/** Seeds PostgreSQL, drives the instances and the ceilings in alternating rounds, prints the figures. */
export async function runPostgres(
  { counts, seconds, rounds, warmUp }: BenchOptions,
  serverUrl: string,
  databaseName: string,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plinth-bench-pg-'))
  const database = await freshDatabase(serverUrl, databaseName)
  // pg_stat_activity, from a connection outside the bench database (its backend is not counted).
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} })
  const bench = postgres(database.url, { max: 1, onnotice: () => {} })
  const servers: Started[] = []
  try {
    let started = performance.now()
    const seeded = await seedPostgres(database.url, dataDir, counts)
    console.log(
      `seeded ${counts.customers} customers and ${counts.sites} sites into PostgreSQL database ${databaseName} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
    await printStatementCounts(database.url, seeded)
    const env = {
      DATABASE_URL: database.url,
      DATABASE_SCHEMA: undefined,
      DATA_DIR: dataDir,
      PLINTH_SECRET: seeded.secret,
      PORT: '0',
      RATE_LIMIT_PER_MINUTE: '1000000000',
    }
    started = performance.now()
    const one = await start('hosts/bun/main.ts', env)
    console.log(
      `panel ready in ${(performance.now() - started).toFixed(0)} ms (process start to listening, on the seeded database)`,
    )
    servers.push(one)
    const other = await start('hosts/bun/main.ts', env)
    servers.push(other)
    const local = await start('bench/local-limiter-server.ts', env)
    servers.push(local)
    const ceilings = [
      await start('bench/ceiling-postgres.ts', env),
      await start('bench/ceiling-postgres.ts', env),
    ]
    servers.push(...ceilings)
    const [ceiling] = ceilings as [Started, Started]
    const urls: Record<Target, string[]> = {
      one: [one.url],
      two: [one.url, other.url],
      local: [local.url],
      ceiling: [ceiling.url],
      ceilings: ceilings.map((server) => server.url),
    }
    const limited = { authorization: `Bearer ${seeded.limitedToken}` }
    const staff = { authorization: `Bearer ${seeded.staffToken}` }
    const deep = await deepCursor(one.url, seeded.limitedToken, counts.bigCustomerSites)
    console.log(
      `deep page: after ${deep.pages * 100} of the big customer's ${counts.bigCustomerSites} sites\n`,
    )

    // CPU counted: the processes driven, and every backend of the bench database. For creates, every panel
    // process: an instance not driven takes part in provisioning (its job workers are woken like the others').
    const pg = { sql: admin, database: databaseName }
    const processes: Record<Target, Started[]> = {
      one: [one],
      two: [one, other],
      local: [local],
      ceiling: [ceiling],
      ceilings,
    }
    const scopeOf = (servers: Started[]): CpuScope => ({
      pids: servers.map((server) => server.process.pid),
      postgres: pg,
    })
    const run = (target: Target, config: DriveConfig, length = seconds, after?: () => Promise<unknown>) =>
      measure(config, length, scopeOf(after ? [one, other, local] : processes[target]), after)
    let waited = 0
    /** Waits for the provisioning of the sites a run created. */
    const provisioned = async () => {
      waited += await drained(async () => {
        const [row] = await bench<{ n: number }[]>`select count(*)::int as n from jobs
          where status in ('queued', 'running')`
        return row?.n ?? 0
      })
    }
    /** The URLs of `target` for `panelPath` (a ceiling answers its one list at `/`). */
    const path = (target: Target, panelPath: string, query = '') =>
      urls[target].map((url) => `${url}${target.startsWith('ceiling') ? '/' : panelPath}${query}`)

    // Every server gets the same warm-up before anything is measured (the JIT compiles the panel's larger code
    // during the first seconds of load).
    if (warmUp > 0) {
      for (const target of ['two', 'local', 'ceilings'] as const)
        await run(target, { urls: path(target, '/api/v1/sites'), headers: limited }, warmUp)
      for (const target of ['two', 'local'] as const)
        await run(target, { urls: path(target, '/api/v1/usage'), headers: staff }, warmUp)
    }

    // Rounds alternate instances and ceilings; each figure is the median over the rounds. The sites a round creates
    // are provisioned before the next round starts.
    const results = new Rounds<Run>()
    const deepQuery = `?cursor=${encodeURIComponent(deep.cursor)}`
    for (let round = 0; round < rounds; round++) {
      for (const target of ['one', 'two', 'local', 'ceiling', 'ceilings'] as const)
        results.add(
          `first:${target}`,
          await run(target, { urls: path(target, '/api/v1/sites'), headers: limited }),
        )
      for (const target of ['one', 'two', 'local', 'ceiling', 'ceilings'] as const)
        results.add(
          `deep:${target}`,
          await run(target, { urls: path(target, '/api/v1/sites', deepQuery), headers: limited }),
        )
      for (const target of ['one', 'two', 'local'] as const)
        results.add(
          `usage:${target}`,
          await run(target, { urls: path(target, '/api/v1/usage'), headers: staff }),
        )
      for (const target of ['one', 'local'] as const)
        results.add(
          `usageAlone:${target}`,
          await run(target, { urls: path(target, '/api/v1/usage'), headers: staff, connections: 1 }),
        )
      let created = 0
      waited = 0
      for (const target of ['one', 'two', 'local'] as const) {
        const config = {
          urls: path(target, '/api/v1/sites'),
          method: 'POST',
          headers: { ...staff, 'content-type': 'application/json' },
          uniqueSites: seeded.bigCustomerId,
          // Issue 14's target is at 16 connections.
          connections: 16,
        }
        created += results.add(`create:${target}`, await run(target, config, seconds, provisioned)).total
      }
      const r = (a: Run, b: Run) => ratio(results.last(a), results.last(b))
      console.log(
        `round ${round + 1}: first page one instance / ceiling ${r('first:one', 'first:ceiling')}%, two / two ceilings ${r('first:two', 'first:ceilings')}%; deep page ${r('deep:one', 'deep:ceiling')}%, ${r('deep:two', 'deep:ceilings')}%; ${created} sites created, provisioned ${(waited / 1000).toFixed(1)} s after`,
      )
    }
    report(results, rounds)
    const peaks = [one, other, local].map((server) => peakMiB(server.process.pid).toFixed(0))
    console.log(
      `peak memory (VmHWM): instances ${peaks[0]} and ${peaks[1]} MiB, in-memory limiter ${peaks[2]} MiB`,
    )
  } finally {
    await stop(servers)
    await bench.end()
    await admin.end()
    await database.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Prints the medians, the ratios, and what the shared limiter costs. */
function report(results: Rounds<Run>, rounds: number): void {
  const m = (name: Run) => results.median(name)
  const line = (name: string, run: Run) => console.log(row(name, m(run), true))
  const forTargets = (title: string, kind: 'first' | 'deep' | 'usage' | 'create', ceilings: boolean) => {
    line(`${title}, one instance`, `${kind}:one`)
    line('  two instances, connections split', `${kind}:two`)
    line('  one instance, in-memory rate limiter', `${kind}:local`)
    if (!ceilings) return
    line('  same query and JSON, bare Bun.serve ceiling', `${kind}:ceiling`)
    line('  two ceiling processes, connections split', `${kind}:ceilings`)
  }
  console.log(
    `\nmedians over ${rounds} round(s)${rounds === 2 ? ' (with two, the means)' : ''}; CPU a request:`,
  )
  console.log('the panel processes (or the ceilings) + the bench database’s PostgreSQL backends')
  forTargets('GET /api/v1/sites, first page', 'first', true)
  forTargets('GET /api/v1/sites, deep page', 'deep', true)
  forTargets('GET /api/v1/usage (platform staff)', 'usage', false)
  const alone = (run: Run) => (1000 / m(run).requestsPerSecond).toFixed(2)
  console.log(
    `  one connection: ${alone('usageAlone:one')} ms a request end to end (in-memory limiter ${alone('usageAlone:local')} ms)`,
  )
  forTargets('POST /api/v1/sites with Idempotency-Key', 'create', false)
  console.log('  (CPU a request includes the provisioning of the site, finished after the run)')
  console.log(
    `\none instance / ceiling throughput: first page ${ratio(m('first:one'), m('first:ceiling'))}%, deep page ${ratio(m('deep:one'), m('deep:ceiling'))}%`,
  )
  console.log(
    `two instances / two ceilings: first page ${ratio(m('first:two'), m('first:ceilings'))}%, deep page ${ratio(m('deep:two'), m('deep:ceilings'))}%`,
  )
  console.log(
    `two instances / one: first page ${ratio(m('first:two'), m('first:one'))}%, deep page ${ratio(m('deep:two'), m('deep:one'))}%, usage ${ratio(m('usage:two'), m('usage:one'))}%, create ${ratio(m('create:two'), m('create:one'))}%`,
  )
  const cpu = (run: Run) => m(run).serverCpu + m(run).databaseCpu
  const share = (kind: 'first' | 'deep' | 'usage' | 'create') =>
    `${kind} ${ratio(m(`${kind}:one`), m(`${kind}:local`))}% of the throughput, ${(cpu(`${kind}:one`) - cpu(`${kind}:local`)).toFixed(0)} µs more CPU (${(((cpu(`${kind}:one`) - cpu(`${kind}:local`)) / cpu(`${kind}:one`)) * 100).toFixed(0)}% of it)`
  console.log(
    `shared rate limiter against the in-memory one, one instance: ${['first', 'deep', 'usage', 'create'].map((kind) => share(kind as 'first')).join('; ')}`,
  )
  console.log(
    `deep page / first page latency, one instance: mean ${(m('deep:one').mean / m('first:one').mean).toFixed(2)}x; throughput ${ratio(m('deep:one'), m('first:one'))}%`,
  )
  const range = (run: Run) => results.range(run)
  console.log(
    `throughput ranges over the rounds (req/s): first page one instance ${range('first:one')}, two ${range('first:two')}, ceiling ${range('first:ceiling')}, two ceilings ${range('first:ceilings')}; usage ${range('usage:one')}; create ${range('create:one')}, two ${range('create:two')}`,
  )
}
