// What bench/run.ts's engines share: starting the servers, driving them from a Node process (bench/drive.mjs) while
// counting the CPU they use, medians over rounds, and the printed lines.

import { readFileSync } from 'node:fs'
import { type CpuScope, measureCpu } from './cpu.ts'
import { root, type Started } from './standalone.ts'

export { type Started, start } from './standalone.ts'

/** One run of autocannon against one or more URLs. */
export interface Load {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  /** Mean latency in ms, with decimals (autocannon's percentiles are whole milliseconds). */
  readonly mean: number
  readonly errors: number
  readonly non2xx: number
  readonly total: number
}

/** A run with the CPU it cost: µs a request, of the server processes and of the database's backends. */
export interface Measured extends Load {
  readonly serverCpu: number
  readonly databaseCpu: number
}

/** What one run drives: `url` (or `urls`, connections split between them), and autocannon's settings. */
export interface DriveConfig {
  readonly url?: string
  readonly urls?: readonly string[]
  readonly headers?: Record<string, string>
  readonly method?: string
  readonly seconds?: number
  readonly connections?: number
  /** Each request a new site of this customer, with its own Idempotency-Key. */
  readonly uniqueSites?: string
}

/** Stops servers with SIGTERM and waits for them. */
export async function stop(servers: readonly Started[]): Promise<void> {
  for (const server of servers) server.process.kill('SIGTERM')
  await Promise.all(servers.map((server) => server.process.exited))
}

/** Runs the load driver in Node, as a separate process. */
export async function drive(config: DriveConfig, seconds: number): Promise<Load> {
  const child = Bun.spawn(
    ['node', 'bench/drive.mjs', JSON.stringify({ seconds, connections: 16, ...config })],
    { cwd: root, stdout: 'pipe', stderr: 'inherit' },
  )
  const output = await new Response(child.stdout).text()
  await child.exited
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Load
}

/**
 * Drives `config` and counts the CPU `scope`'s processes use meanwhile, per request; with `after`, until it is done
 * too (the provisioning of the sites a run created: their CPU is the creates' own).
 */
export async function measure(
  config: DriveConfig,
  seconds: number,
  scope: CpuScope,
  after?: () => Promise<unknown>,
): Promise<Measured> {
  const { result, cpu } = await measureCpu(scope, async () => {
    const load = await drive(config, seconds)
    await after?.()
    return load
  })
  const requests = Math.max(result.total, 1)
  return {
    ...result,
    serverCpu: cpu.servers / requests,
    databaseCpu: cpu.database / requests,
  }
}

/** The median of each figure over several runs of one load (errors summed); with two runs, their mean. */
export function medianOf(runs: readonly Measured[]): Measured {
  const median = (pick: (run: Measured) => number) => {
    const sorted = runs.map(pick).sort((a, b) => a - b)
    const middle = Math.floor(sorted.length / 2)
    if (sorted.length === 0) return 0
    return sorted.length % 2 === 1
      ? (sorted[middle] ?? 0)
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
  }
  const sum = (pick: (run: Measured) => number) => runs.reduce((total, run) => total + pick(run), 0)
  return {
    requestsPerSecond: median((run) => run.requestsPerSecond),
    p50: median((run) => run.p50),
    p99: median((run) => run.p99),
    mean: median((run) => run.mean),
    errors: sum((run) => run.errors),
    non2xx: sum((run) => run.non2xx),
    total: sum((run) => run.total),
    serverCpu: median((run) => run.serverCpu),
    databaseCpu: median((run) => run.databaseCpu),
  }
}

/** Runs of several loads, by name, one more each round. */
export class Rounds<Name extends string> {
  readonly #runs = new Map<Name, Measured[]>()
  add(name: Name, run: Measured): Measured {
    this.#runs.set(name, [...(this.#runs.get(name) ?? []), run])
    return run
  }
  /** This round's run of `name`. */
  last(name: Name): Measured {
    const runs = this.#runs.get(name) ?? []
    const run = runs.at(-1)
    if (!run) throw new Error(`no run of ${name}`)
    return run
  }
  median(name: Name): Measured {
    return medianOf(this.#runs.get(name) ?? [])
  }
  /** The range of `name`'s throughput over the rounds, for the noise. */
  range(name: Name): string {
    const values = (this.#runs.get(name) ?? []).map((run) => run.requestsPerSecond)
    return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`
  }
}

/** `a`'s throughput as a percentage of `b`'s. */
export function ratio(a: Load, b: Load): string {
  return ((a.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(0)
}

/** One printed line: throughput, latency, and CPU a request (the database's too when `database` is set). */
export function row(name: string, load: Measured, database = false): string {
  const flags = load.errors + load.non2xx > 0 ? `  (${load.errors} errors, ${load.non2xx} non-2xx)` : ''
  const ms = (value: number) => value.toFixed(1).padStart(5)
  const cpu = `CPU ${load.serverCpu.toFixed(0).padStart(4)} µs${database ? ` + PG ${load.databaseCpu.toFixed(0).padStart(4)} µs` : ''}/req`
  return `${name.padEnd(46)} ${load.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${ms(load.p50)} ms   p99 ${ms(load.p99)} ms   mean ${ms(load.mean)} ms   ${cpu}${flags}`
}

/** Peak resident memory (VmHWM) of a running process, MiB. */
export function peakMiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
}

/**
 * Walks the big customer's sites 100 at a time to 90% of the way through the panel at `url`: the cursor of a deep
 * page, and the last id before it (the plain-cursor ceiling's cursor).
 */
export async function deepCursor(
  url: string,
  token: string,
  bigCustomerSites: number,
): Promise<{ cursor: string; lastId: string; pages: number }> {
  let cursor: string | null = null
  let lastId = ''
  const pages = Math.floor((bigCustomerSites * 0.9) / 100)
  for (let i = 0; i < pages; i++) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
    const page = (await (
      await fetch(`${url}/api/v1/sites?limit=100${query}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { items: { id: string }[]; nextCursor: string | null }
    cursor = page.nextCursor
    lastId = page.items.at(-1)?.id ?? lastId
  }
  return { cursor: cursor ?? '', lastId, pages }
}

/** Waits until `pending()` answers 0 (the provisioning jobs of the sites a run created), for up to `ms`. */
export async function drained(pending: () => Promise<number>, ms = 300_000): Promise<number> {
  const started = performance.now()
  while ((await pending()) > 0 && performance.now() - started < ms) await Bun.sleep(200)
  return performance.now() - started
}
