// A WordPress front page on one node at 16 connections: uncached (the site's PHP and MariaDB on every request), from
// the page cache (nginx's FastCGI cache, the `cache` node module), and the same HTML as a static file served by the
// same nginx (the ceiling). Real nginx, PHP-FPM, Debian's WordPress and MariaDB through the node runtime; the load
// from wrk (one thread, keep-alive), in alternating rounds whose medians are reported: requests a second, p50 and p99
// latency, and the node's CPU per request (nginx, the site's PHP group, MariaDB), beside what wrk itself took.
// `npm run bench:node` (as root, with nginx, php-fpm, php-mysql, wordpress, wrk and MariaDB on 127.0.0.1:3306).
// PAGE_BENCH_ROUNDS (5), PAGE_BENCH_SECONDS (5 a round), PAGE_BENCH_CONNECTIONS (16).

import { chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort, nodeWith, processesOf, requestSite as request } from '../hosts/testing/index.ts'
import cacheNodeModule from '../plugins/cache/node/index.ts'
import type { SiteSpec } from '../plugins/nodes/node/contract.ts'
import { siteGroupCpuNanos, sitePaths } from '../plugins/nodes/node/testing/serving.ts'
import wordpressNodeModule from '../plugins/wordpress/node/index.ts'

const rounds = Number(process.env.PAGE_BENCH_ROUNDS ?? 5)
const seconds = Number(process.env.PAGE_BENCH_SECONDS ?? 5)
const connections = Number(process.env.PAGE_BENCH_CONNECTIONS ?? 16)
if (!Bun.which('wrk')) throw new Error('bench:node needs wrk (apt-get install -y wrk)')

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-page-bench-'))
const port = freePort()
const node = await nodeWith([wordpressNodeModule, cacheNodeModule], {
  dataDir,
  httpPort: port,
  httpsPort: freePort(),
})
const { runtime } = node
const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
const run = crypto.randomUUID().replaceAll('-', '').slice(0, 6)
const never = new AbortController().signal
const made: { spec: SiteSpec; database: string }[] = []

/** A WordPress site with a database of its own, its page cache on or off. */
async function wordpressSite(name: string, cached: boolean): Promise<SiteSpec> {
  const database = `pgb_${run}_${name}`
  await root.query('CREATE DATABASE ??', [database])
  await root.query('CREATE USER ?@? IDENTIFIED BY ?', [database, '127.0.0.1', 'Bench-Db-2026'])
  await root.query('GRANT ALL ON ??.* TO ?@?', [database, database, '127.0.0.1'])
  const passwordHash = (
    await Bun.password.hash('Bench-Admin-2026', { algorithm: 'bcrypt', cost: 4 })
  ).replace(/^\$2b\$/, '$2y$')
  const spec: SiteSpec = {
    id: `site_pgb_${run}_${name}`,
    handle: `pgb-${run}-${name}`,
    domain: `pgb-${run}-${name}.example.test`,
    type: 'wordpress',
    customerId: 'cus_page_bench',
    diskMB: null,
    app: {
      kind: 'wordpress',
      settings: {
        title: 'Page cache bench',
        database: {
          host: '127.0.0.1',
          port: 3306,
          name: database,
          user: database,
          password: 'Bench-Db-2026',
        },
        admin: { user: 'admin', email: 'admin@example.test', passwordHash },
      },
    },
    serving: { cache: { enabled: cached, ttlSeconds: 3600 } },
  }
  made.push({ spec, database })
  await runtime.provision(spec, never)
  return spec
}

/** CPU time (ms) of the processes whose command line names the data directory (nginx's master and workers). */
function nginxCpuMs(): number {
  const tick = 1000 / 100
  let total = 0
  for (const pid of new Set(processesOf(dataDir))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('nginx')) continue
      total += (Number(fields[11]) + Number(fields[12])) * tick
    } catch {}
  }
  return total
}
function mariadbCpuMs(): number {
  const pid = Bun.spawnSync(['pidof', 'mariadbd']).stdout.toString().trim().split(' ')[0]
  if (!pid) return 0
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

interface Round {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** The node's CPU per request, in ms: nginx, the site's PHP, MariaDB. */
  readonly cpuMs: number
  /** What wrk took, in ms of CPU a second. */
  readonly wrkCpuShare: number
}

/** Milliseconds in one of wrk's latency figures (`812.00us`, `1.20ms`, `1.01s`). */
function msOf(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text)
  if (!match) throw new Error(`wrk printed an unknown latency ${text}`)
  const value = Number(match[1])
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value
}

/** One round of `seconds` at `connections` on `path` of `site`; the PHP group read is the site's. */
async function load(site: SiteSpec, path: string, duration = seconds): Promise<Round> {
  const before = { nginx: nginxCpuMs(), php: await siteGroupCpuNanos(dataDir, site.id), db: mariadbCpuMs() }
  const wrk = Bun.spawn(
    [
      'wrk',
      '-t1',
      `-c${connections}`,
      `-d${duration}s`,
      '--latency',
      // An uncached page on a busy machine can take seconds: counted, not dropped as wrk's 2 s timeouts.
      '--timeout',
      '30s',
      '-H',
      `Host: ${site.domain}`,
      `http://127.0.0.1:${port}${path}`,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const output = await new Response(wrk.stdout).text()
  await wrk.exited
  const usage = wrk.resourceUsage()
  const after = { nginx: nginxCpuMs(), php: await siteGroupCpuNanos(dataDir, site.id), db: mariadbCpuMs() }
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0)
  // A read or write error is a keep-alive connection nginx closed (after its `keepalive_requests`) while wrk sent
  // on it: at tens of thousands a second a few dozen in a round, counted and allowed up to 0.1 % of the requests.
  // Errors of the page (non-2xx), refused connections and timeouts fail the run.
  const [connect = 0, read = 0, write = 0, timeout = 0] = (
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output)?.slice(1) ?? []
  ).map(Number)
  if (/Non-2xx or 3xx responses/.test(output) || connect + timeout > 0 || read + write > requests / 1000)
    throw new Error(`${path} answered errors:\n${output}`)
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0)
  const p50 = msOf(/ 50%\s+(\S+)/.exec(output)?.[1] ?? '')
  const p99 = msOf(/ 99%\s+(\S+)/.exec(output)?.[1] ?? '')
  const nodeMs = after.nginx - before.nginx + (after.php - before.php) / 1e6 + (after.db - before.db)
  const wrkMs = usage ? Number(usage.cpuTime.total) / 1000 : 0
  return { rps, p50, p99, cpuMs: nodeMs / Math.max(1, requests), wrkCpuShare: wrkMs / duration / 1000 }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

try {
  await runtime.start()
  const stopServices = await node.startServices(() => {})
  const uncached = await wordpressSite('plain', false)
  const cached = await wordpressSite('cached', true)
  // The ceiling: the cached site's own front page, as a file nginx serves from its document root.
  const html = await (await request(port, cached.domain, '/')).text()
  const htdocs = sitePaths(dataDir, cached).htdocs
  writeFileSync(join(htdocs, 'front-page.html'), html)
  const owner = statSync(join(htdocs, 'index.php'))
  chownSync(join(htdocs, 'front-page.html'), owner.uid, owner.gid)
  const front = await request(port, cached.domain, '/')
  await front.arrayBuffer()
  if (front.headers.get('x-cache') !== 'HIT')
    throw new Error(`The cached site's front page is ${front.headers.get('x-cache')}`)
  const plain = await request(port, uncached.domain, '/')
  await plain.arrayBuffer()
  if (plain.headers.get('x-cache') !== null) throw new Error('The uncached site has a cache')

  const modes = [
    { name: 'uncached (PHP + MariaDB)', site: uncached, path: '/' },
    { name: 'cached (nginx FastCGI cache)', site: cached, path: '/' },
    { name: 'static file (ceiling)', site: cached, path: '/front-page.html' },
  ] as const
  // Warm: PHP's workers started and OPcache filled, the cache and the page cache of the file filled.
  for (const mode of modes) await load(mode.site, mode.path, 2)
  const results = new Map<string, Round[]>(modes.map((mode) => [mode.name, []]))
  for (let round = 0; round < rounds; round++)
    for (const mode of round % 2 ? [...modes].reverse() : modes)
      results.get(mode.name)?.push(await load(mode.site, mode.path))
  console.log(
    `WordPress front page (${html.length} bytes), ${connections} connections, wrk -t1, medians of ${rounds} rounds of ${seconds} s (alternating order), ${navigator.hardwareConcurrency} cores:`,
  )
  const ceiling = median((results.get(modes[2].name) ?? []).map((round) => round.rps))
  for (const mode of modes) {
    const all = results.get(mode.name) ?? []
    const rps = median(all.map((round) => round.rps))
    const range = `${Math.min(...all.map((round) => round.rps)).toFixed(0)}–${Math.max(...all.map((round) => round.rps)).toFixed(0)}`
    console.log(
      `${mode.name.padEnd(30)} ${rps.toFixed(0).padStart(7)} req/s (${range}; ${((rps / ceiling) * 100).toFixed(0).padStart(3)} % of static)  p50 ${median(
        all.map((round) => round.p50),
      )
        .toFixed(2)
        .padStart(7)} ms  p99 ${median(all.map((round) => round.p99))
        .toFixed(2)
        .padStart(
          7,
        )} ms  node CPU ${median(all.map((round) => round.cpuMs)).toFixed(3)} ms/request  (wrk used ${(median(all.map((round) => round.wrkCpuShare)) * 100).toFixed(0)} % of a core)`,
    )
  }
  await stopServices()
} finally {
  for (const { spec, database } of made) {
    await runtime.delete(spec, never).catch(() => {})
    await root.query('DROP DATABASE IF EXISTS ??', [database]).catch(() => {})
    await root.query('DROP USER IF EXISTS ?@?', [database, '127.0.0.1']).catch(() => {})
  }
  await runtime.stop()
  await root.end()
  rmSync(dataDir, { recursive: true, force: true })
}
