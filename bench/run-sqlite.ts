// `npm run bench` on the embedded SQLite store (the default): one panel process on the seeded file, beside the bare
// ceiling and the plain-cursor ceiling on the same file. bench/run.ts describes the settings.

import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CpuScope } from './cpu.ts'
import { deepCursor, drained, measure, peakMiB, Rounds, ratio, row, start, stop } from './load.ts'
import type { BenchOptions } from './run.ts'
import { seed } from './seed.ts'

type Run =
  | 'panelFirst'
  | 'ceilingFirst'
  | 'plainFirst'
  | 'besideFirst'
  | 'panelDeep'
  | 'ceilingDeep'
  | 'plainDeep'
  | 'usage'
  | 'usageAlone'
  | 'create'

/** Seeds SQLite, drives the panel and the ceilings in alternating rounds, prints the figures. */
export async function runSqlite({ counts, seconds, rounds, warmUp }: BenchOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plinth-bench-'))
  // The store is this file whatever the environment says.
  const env = { DATABASE_URL: undefined, DATABASE_SCHEMA: undefined }
  try {
    let started = performance.now()
    const seeded = await seed(dataDir, counts)
    console.log(
      `seeded ${counts.customers} customers and ${counts.sites} sites in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )

    started = performance.now()
    const panel = await start('hosts/bun/main.ts', {
      ...env,
      PORT: '0',
      DATA_DIR: dataDir,
      PLINTH_SECRET: seeded.secret,
      RATE_LIMIT_PER_MINUTE: '1000000000',
    })
    console.log(
      `panel ready in ${(performance.now() - started).toFixed(0)} ms (process start to listening, on the seeded store)`,
    )
    const ceiling = await start('bench/ceiling.ts', {
      ...env,
      DATA_DIR: dataDir,
      PLINTH_SECRET: seeded.secret,
    })
    // The ceiling as the first benchmarks had it, answering the last id as the cursor: for comparison with them.
    const plainCeiling = await start('bench/ceiling.ts', {
      ...env,
      DATA_DIR: dataDir,
      PLINTH_SECRET: seeded.secret,
      CEILING_CURSOR: 'plain',
    })
    // The same ceiling in a process holding an opened panel: what the panel's process weighs on the same work.
    const besideCeiling = await start('bench/ceiling-in-panel.ts', {
      ...env,
      PORT: '0',
      DATA_DIR: dataDir,
      PLINTH_SECRET: seeded.secret,
    })
    const limited = { authorization: `Bearer ${seeded.limitedToken}` }
    const staff = { authorization: `Bearer ${seeded.staffToken}` }
    const deep = await deepCursor(panel.url, seeded.limitedToken, counts.bigCustomerSites)
    console.log(
      `deep page: after ${deep.pages * 100} of the big customer's ${counts.bigCustomerSites} sites\n`,
    )

    // CPU is counted for the server under load: the panel (SQLite works inside it), or a ceiling.
    const on = (server: { process: { pid: number } }): CpuScope => ({ pids: [server.process.pid] })
    const run = (
      config: Parameters<typeof measure>[0],
      scope: CpuScope,
      length = seconds,
      after?: () => Promise<unknown>,
    ) => measure(config, length, scope, after)
    const jobs = new Database(join(dataDir, 'plinth.sqlite'), { readonly: true })
    const pending = jobs.query("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')")
    let waited = 0
    /** Waits for the provisioning of the sites a run created. */
    const provisioned = async () => {
      waited = await drained(async () => (pending.get() as { n: number }).n)
    }

    // Both servers get the same warm-up on the list before anything is measured: the JIT is still compiling the
    // panel's larger code for the first seconds of load, while the ceiling's few lines are compiled at once.
    if (warmUp > 0) {
      await run({ url: `${panel.url}/api/v1/sites`, headers: limited }, on(panel), warmUp)
      await run({ url: `${ceiling.url}/`, headers: limited }, on(ceiling), warmUp)
      await run({ url: `${plainCeiling.url}/`, headers: limited }, on(plainCeiling), warmUp)
      await run({ url: `${besideCeiling.url}/`, headers: limited }, on(besideCeiling), warmUp)
      await run({ url: `${panel.url}/api/v1/usage`, headers: staff }, on(panel), warmUp)
    }

    // Rounds alternate panel and ceilings, since runs vary by a fifth on two shared cores: each figure below is the
    // median over the rounds. The sites a round creates are provisioned before the next round starts, and the CPU a
    // create costs counts their provisioning.
    const results = new Rounds<Run>()
    const deepCursorParam = encodeURIComponent(deep.cursor)
    for (let round = 0; round < rounds; round++) {
      const list = (name: Run, url: string, server: typeof panel) =>
        run({ url, headers: limited }, on(server)).then((load) => results.add(name, load))
      await list('panelFirst', `${panel.url}/api/v1/sites`, panel)
      await list('ceilingFirst', `${ceiling.url}/`, ceiling)
      await list('plainFirst', `${plainCeiling.url}/`, plainCeiling)
      await list('besideFirst', `${besideCeiling.url}/`, besideCeiling)
      await list('panelDeep', `${panel.url}/api/v1/sites?cursor=${deepCursorParam}`, panel)
      await list('ceilingDeep', `${ceiling.url}/?cursor=${deepCursorParam}`, ceiling)
      await list('plainDeep', `${plainCeiling.url}/?cursor=${deep.lastId}`, plainCeiling)
      results.add('usage', await run({ url: `${panel.url}/api/v1/usage`, headers: staff }, on(panel)))
      // One request at a time: the endpoint's own latency, without queueing behind 15 others.
      results.add(
        'usageAlone',
        await run({ url: `${panel.url}/api/v1/usage`, headers: staff, connections: 1 }, on(panel)),
      )
      results.add(
        'create',
        await run(
          {
            url: `${panel.url}/api/v1/sites`,
            method: 'POST',
            headers: { ...staff, 'content-type': 'application/json' },
            uniqueSites: seeded.bigCustomerId,
            // Issue 14's target is at 16 connections.
            connections: 16,
          },
          on(panel),
          seconds,
          provisioned,
        ),
      )
      const r = (a: Run, b: Run) => ratio(results.last(a), results.last(b))
      console.log(
        `round ${round + 1}: panel / ceiling first page ${r('panelFirst', 'ceilingFirst')}%, deep page ${r('panelDeep', 'ceilingDeep')}% (against the plain-cursor ceiling ${r('panelFirst', 'plainFirst')}%, ${r('panelDeep', 'plainDeep')}%); ${results.last('create').total} sites created, provisioned ${(waited / 1000).toFixed(1)} s after`,
      )
    }
    jobs.close()
    const m = (name: Run) => results.median(name)

    console.log(`\nmedians over ${rounds} round(s)${rounds === 2 ? ' (with two, the means)' : ''}:`)
    console.log(row('GET /api/v1/sites, first page (panel)', m('panelFirst')))
    console.log(row('  same query and JSON, bare Bun.serve ceiling', m('ceilingFirst')))
    console.log(row('  ceiling with the last id as cursor', m('plainFirst')))
    console.log(row('  the ceiling in a process holding an opened panel', m('besideFirst')))
    console.log(row('GET /api/v1/sites, deep page (panel)', m('panelDeep')))
    console.log(row('  same query and JSON, bare Bun.serve ceiling', m('ceilingDeep')))
    console.log(row('  ceiling with the last id as cursor', m('plainDeep')))
    console.log(row('GET /api/v1/usage (platform staff)', m('usage')))
    // With one connection each request waits for the last, so its time is the inverse of the throughput (autocannon's
    // percentiles are whole milliseconds, all 0 here).
    console.log(
      `  the same, one connection: ${m('usageAlone').requestsPerSecond.toFixed(0)} req/s, ${(1000 / m('usageAlone').requestsPerSecond).toFixed(2)} ms a request end to end`,
    )
    console.log(row('POST /api/v1/sites with Idempotency-Key', m('create')))
    console.log('  (its CPU a request includes the provisioning of the site, finished after the run)')
    console.log(
      `\npanel / ceiling throughput: first page ${ratio(m('panelFirst'), m('ceilingFirst'))}%, deep page ${ratio(m('panelDeep'), m('ceilingDeep'))}%`,
    )
    console.log(
      `panel / plain-cursor ceiling: first page ${ratio(m('panelFirst'), m('plainFirst'))}%, deep page ${ratio(m('panelDeep'), m('plainDeep'))}%`,
    )
    console.log(
      `the panel's process weight: ceiling beside a panel / bare ceiling ${ratio(m('besideFirst'), m('ceilingFirst'))}%, CPU ${(m('besideFirst').serverCpu / m('ceilingFirst').serverCpu).toFixed(2)}x; panel / ceiling beside a panel ${ratio(m('panelFirst'), m('besideFirst'))}%, CPU ${(m('panelFirst').serverCpu / m('besideFirst').serverCpu).toFixed(2)}x`,
    )
    console.log(
      `deep page / first page latency: p50 ${(m('panelDeep').p50 / Math.max(m('panelFirst').p50, 1)).toFixed(2)}x, mean ${(m('panelDeep').mean / m('panelFirst').mean).toFixed(2)}x; throughput ${ratio(m('panelDeep'), m('panelFirst'))}%`,
    )
    console.log(
      `throughput ranges over the rounds (req/s): panel first page ${results.range('panelFirst')}, ceiling ${results.range('ceilingFirst')}; panel deep ${results.range('panelDeep')}, ceiling ${results.range('ceilingDeep')}; usage ${results.range('usage')}; create ${results.range('create')}`,
    )
    console.log(`panel peak memory (VmHWM): ${peakMiB(panel.process.pid).toFixed(0)} MiB`)
    await stop([panel, ceiling, plainCeiling, besideCeiling])
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
