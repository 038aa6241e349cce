// `npm run bench`: seeds 100k customers and 1M sites, then drives the panel and a bare Bun.serve ceiling on the same
// database from a second process (autocannon under Node) and prints throughput, latency and ratios. No pass/fail:
// the figures go into docs/performance.md. `BENCH_SCALE=0.1` runs a tenth of the size for a quick look;
// `BENCH_SECONDS` (5) is the length of a run, `BENCH_ROUNDS` (2) how often the list comparisons repeat.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seed } from './seed.ts'

const scale = Number(process.env.BENCH_SCALE ?? '1')
const seconds = Number(process.env.BENCH_SECONDS ?? '5')
const root = join(import.meta.dir, '..')

interface Load {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  /** Mean latency in ms, with decimals (autocannon's percentiles are whole milliseconds). */
  readonly mean: number
  readonly errors: number
  readonly non2xx: number
  readonly total: number
}

type ListRun = 'panelFirst' | 'ceilingFirst' | 'plainFirst' | 'panelDeep' | 'ceilingDeep' | 'plainDeep'

/** The mean of several runs of one load. */
function meanOf(loads: readonly Load[]): Load {
  const mean = (pick: (load: Load) => number) =>
    loads.reduce((sum, load) => sum + pick(load), 0) / Math.max(loads.length, 1)
  const sum = (pick: (load: Load) => number) => loads.reduce((total, load) => total + pick(load), 0)
  return {
    requestsPerSecond: mean((load) => load.requestsPerSecond),
    p50: mean((load) => load.p50),
    p99: mean((load) => load.p99),
    mean: mean((load) => load.mean),
    errors: sum((load) => load.errors),
    non2xx: sum((load) => load.non2xx),
    total: sum((load) => load.total),
  }
}

function ratio(a: Load, b: Load): string {
  return ((a.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(0)
}

/** Starts a Bun script and waits for the URL it prints. */
async function start(
  script: string,
  env: Record<string, string>,
): Promise<{ url: string; process: Bun.Subprocess<'ignore', 'pipe', 'inherit'> }> {
  const child = Bun.spawn([process.execPath, script], {
    cwd: root,
    // Request log lines off, as in the earlier figures: their cost is measured apart (docs/performance.md).
    env: { ...process.env, LOG_REQUESTS: '0', ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = child.stdout.getReader()
  let output = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${script} exited: ${output}`)
    output += new TextDecoder().decode(value)
    const url = /listening on (\S+)/.exec(output)?.[1]
    if (url) {
      reader.releaseLock()
      return { url, process: child as Bun.Subprocess<'ignore', 'pipe', 'inherit'> }
    }
  }
}

/** Runs the load driver in Node, as a separate process. */
async function drive(config: Record<string, unknown>): Promise<Load> {
  const child = Bun.spawn(
    ['node', 'bench/drive.mjs', JSON.stringify({ seconds, connections: 16, ...config })],
    {
      cwd: root,
      stdout: 'pipe',
      stderr: 'inherit',
    },
  )
  const output = await new Response(child.stdout).text()
  await child.exited
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Load
}

function row(name: string, load: Load): string {
  const flags = load.errors + load.non2xx > 0 ? `  (${load.errors} errors, ${load.non2xx} non-2xx)` : ''
  const ms = (value: number) => value.toFixed(1).padStart(5)
  return `${name.padEnd(46)} ${load.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${ms(load.p50)} ms   p99 ${ms(load.p99)} ms   mean ${ms(load.mean)} ms${flags}`
}

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-bench-'))
try {
  const counts = {
    customers: Math.round(100_000 * scale),
    sites: Math.round(1_000_000 * scale),
    bigCustomerSites: Math.round(50_000 * scale),
  }
  let started = performance.now()
  const seeded = await seed(dataDir, counts)
  console.log(
    `seeded ${counts.customers} customers and ${counts.sites} sites in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )

  started = performance.now()
  const panel = await start('hosts/bun/main.ts', {
    PORT: '0',
    DATA_DIR: dataDir,
    PLINTH_SECRET: seeded.secret,
    RATE_LIMIT_PER_MINUTE: '1000000000',
  })
  console.log(
    `panel ready in ${(performance.now() - started).toFixed(0)} ms (process start to listening, on the seeded store)`,
  )
  const ceiling = await start('bench/ceiling.ts', { DATA_DIR: dataDir, PLINTH_SECRET: seeded.secret })
  // The ceiling as the first benchmarks had it, answering the last id as the cursor: for comparison with them.
  const plainCeiling = await start('bench/ceiling.ts', {
    DATA_DIR: dataDir,
    PLINTH_SECRET: seeded.secret,
    CEILING_CURSOR: 'plain',
  })

  // A deep page: walk the big customer's sites 100 at a time to 90% of the way, keeping the cursor and last id.
  const limited = { authorization: `Bearer ${seeded.limitedToken}` }
  const staff = { authorization: `Bearer ${seeded.staffToken}` }
  let cursor: string | null = null
  let lastId = ''
  const pages = Math.floor((counts.bigCustomerSites * 0.9) / 100)
  for (let i = 0; i < pages; i++) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
    const page = (await (
      await fetch(`${panel.url}/api/v1/sites?limit=100${query}`, { headers: limited })
    ).json()) as {
      items: { id: string }[]
      nextCursor: string | null
    }
    cursor = page.nextCursor
    lastId = page.items.at(-1)?.id ?? lastId
  }
  console.log(`deep page: after ${pages * 100} of the big customer's ${counts.bigCustomerSites} sites\n`)

  // Both servers get the same warm-up on the list before anything is measured: the JIT is still compiling the
  // panel's larger code for the first seconds of load, while the ceiling's few lines are compiled at once.
  const warmUp = Number(process.env.BENCH_WARMUP_SECONDS ?? '2')
  if (warmUp > 0) {
    await drive({ url: `${panel.url}/api/v1/sites`, headers: limited, seconds: warmUp })
    await drive({ url: `${ceiling.url}/`, headers: limited, seconds: warmUp })
    await drive({ url: `${plainCeiling.url}/`, headers: limited, seconds: warmUp })
    await drive({ url: `${panel.url}/api/v1/usage`, headers: staff, seconds: warmUp })
  }

  // The list comparisons run in rounds, panel and ceilings one after the other, since runs vary by a fifth on two
  // shared cores: each figure below is the mean over the rounds.
  const rounds = Number(process.env.BENCH_ROUNDS ?? '2')
  const list: Record<ListRun, Load[]> = {
    panelFirst: [],
    ceilingFirst: [],
    plainFirst: [],
    panelDeep: [],
    ceilingDeep: [],
    plainDeep: [],
  }
  const deepCursor = encodeURIComponent(cursor ?? '')
  for (let round = 0; round < rounds; round++) {
    list.panelFirst.push(await drive({ url: `${panel.url}/api/v1/sites`, headers: limited }))
    list.ceilingFirst.push(await drive({ url: `${ceiling.url}/`, headers: limited }))
    list.plainFirst.push(await drive({ url: `${plainCeiling.url}/`, headers: limited }))
    list.panelDeep.push(
      await drive({ url: `${panel.url}/api/v1/sites?cursor=${deepCursor}`, headers: limited }),
    )
    list.ceilingDeep.push(await drive({ url: `${ceiling.url}/?cursor=${deepCursor}`, headers: limited }))
    list.plainDeep.push(await drive({ url: `${plainCeiling.url}/?cursor=${lastId}`, headers: limited }))
    const r = (a: ListRun, b: ListRun) => ratio(list[a][round] as Load, list[b][round] as Load)
    console.log(
      `round ${round + 1}: panel / ceiling first page ${r('panelFirst', 'ceilingFirst')}%, deep page ${r('panelDeep', 'ceilingDeep')}% (against the plain-cursor ceiling ${r('panelFirst', 'plainFirst')}%, ${r('panelDeep', 'plainDeep')}%)`,
    )
  }
  const results = {
    ...(Object.fromEntries(Object.entries(list).map(([name, loads]) => [name, meanOf(loads)])) as Record<
      ListRun,
      Load
    >),
    usage: await drive({ url: `${panel.url}/api/v1/usage`, headers: staff }),
    // One request at a time: the endpoint's own latency, without queueing behind 15 others.
    usageAlone: await drive({ url: `${panel.url}/api/v1/usage`, headers: staff, connections: 1 }),
    create: await drive({
      url: `${panel.url}/api/v1/sites`,
      method: 'POST',
      headers: { ...staff, 'content-type': 'application/json' },
      uniqueSites: seeded.bigCustomerId,
      connections: 4,
    }),
  }
  const peakKb = Number(
    /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${panel.process.pid}/status`, 'utf8'))?.[1] ?? 0,
  )

  console.log(`\nmeans over ${rounds} round(s):`)
  console.log(row('GET /api/v1/sites, first page (panel)', results.panelFirst))
  console.log(row('  same query and JSON, bare Bun.serve ceiling', results.ceilingFirst))
  console.log(row('  ceiling with the last id as cursor', results.plainFirst))
  console.log(row('GET /api/v1/sites, deep page (panel)', results.panelDeep))
  console.log(row('  same query and JSON, bare Bun.serve ceiling', results.ceilingDeep))
  console.log(row('  ceiling with the last id as cursor', results.plainDeep))
  console.log(row('GET /api/v1/usage (platform staff)', results.usage))
  // With one connection each request waits for the last, so its time is the inverse of the throughput (autocannon's
  // percentiles are whole milliseconds, all 0 here).
  console.log(
    `  the same, one connection: ${results.usageAlone.requestsPerSecond.toFixed(0)} req/s, ${(1000 / results.usageAlone.requestsPerSecond).toFixed(2)} ms a request end to end`,
  )
  console.log(row('POST /api/v1/sites with Idempotency-Key', results.create))
  console.log(
    `\npanel / ceiling throughput: first page ${ratio(results.panelFirst, results.ceilingFirst)}%, deep page ${ratio(results.panelDeep, results.ceilingDeep)}%`,
  )
  console.log(
    `panel / plain-cursor ceiling: first page ${ratio(results.panelFirst, results.plainFirst)}%, deep page ${ratio(results.panelDeep, results.plainDeep)}%`,
  )
  console.log(
    `deep page / first page latency: p50 ${(results.panelDeep.p50 / Math.max(results.panelFirst.p50, 1)).toFixed(2)}x, mean ${(results.panelDeep.mean / results.panelFirst.mean).toFixed(2)}x; throughput ${ratio(results.panelDeep, results.panelFirst)}%`,
  )
  console.log(`panel peak memory (VmHWM): ${(peakKb / 1024).toFixed(0)} MiB`)

  for (const server of [panel, ceiling, plainCeiling]) server.process.kill('SIGTERM')
  await Promise.all([panel.process.exited, ceiling.process.exited, plainCeiling.process.exited])
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
