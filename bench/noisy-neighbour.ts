// A noisy neighbour on one node: site A, held to small limits, attacks with a CPU hog, a memory hog, a bounded fork
// bomb and a disk fill, each from its PHP (served by the node's nginx and A's PHP-FPM) and from an exec job (the shell
// service's sandbox), while site B's WordPress front page is requested throughout. Reports B's p50/p99 quiet and under
// each attack (medians of alternating quiet and attack rounds), A's use against its limits as the kernel reports it,
// the node's memory, and whether anything outside A was killed. Target: B's p99 under attack at most 1.5× quiet.
// `npm run bench:noisy` (as root, with nginx, php-fpm, php-mysql, wordpress, bubblewrap and MariaDB on 127.0.0.1:3306).

import { chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort, nodeWith, processesOf, requestSite as request } from '../hosts/testing/index.ts'
import type { SiteResources, SiteSpec } from '../plugins/nodes/node/contract.ts'
import { processInfo } from '../plugins/nodes/node/runtime/masters.ts'
import { sitePaths } from '../plugins/nodes/node/testing/serving.ts'
import shellNodeModule from '../plugins/shell/node/index.ts'
import wordpressNodeModule from '../plugins/wordpress/node/index.ts'

const rounds = Number(process.env.NOISY_ROUNDS ?? 3)
const windowMs = Number(process.env.NOISY_WINDOW_MS ?? 6_000)
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-noisy-'))
const port = freePort()
const node = await nodeWith([wordpressNodeModule, shellNodeModule], {
  dataDir,
  httpPort: port,
  httpsPort: freePort(),
})
const { runtime } = node
const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
const run = crypto.randomUUID().slice(0, 6)
const never = new AbortController().signal

const limits = { cpuPercent: 50, memoryMB: 256, processes: 64, diskMB: 200 }
const noisy: SiteSpec = {
  id: `site_noisy_${run}_a`,
  handle: `noisy-${run}-a`,
  domain: `noisy-${run}-a.example.test`,
  type: 'php',
  customerId: 'cus_noisy_a',
  ...limits,
  // As a plan that relaxes PHP's disabled functions would: the limits must hold even then.
  allowFunctions: ['exec', 'shell_exec', 'proc_open'],
}
const database = `noisy_${run}_b`
const quiet: SiteSpec = {
  id: `site_noisy_${run}_b`,
  handle: `noisy-${run}-b`,
  domain: `noisy-${run}-b.example.test`,
  type: 'wordpress',
  customerId: 'cus_noisy_b',
  diskMB: 500,
  cpuPercent: 100,
  memoryMB: 512,
  processes: 64,
}

/** The attacks, each from A's PHP (a script requested `parallel` times at once) and from an exec job. */
interface Attack {
  readonly name: string
  /** PHP run for the attack's window; `$seconds` is how long. */
  readonly php: string
  readonly parallel: number
  /** An exec job's command line (in the sandbox, `/htdocs` is the document root, `/tmp` the site's). */
  readonly exec: (seconds: number) => string[]
}
const attacks: readonly Attack[] = [
  {
    name: 'CPU hog',
    php: '$end = microtime(true) + $seconds; while (microtime(true) < $end) {}',
    parallel: 4,
    exec: (s) => ['sh', '-c', `for i in 1 2 3 4; do timeout ${s} sh -c 'while :; do :; done' & done; wait`],
  },
  {
    name: 'memory hog',
    php: 'ini_set("memory_limit", "-1"); $a = []; $end = microtime(true) + $seconds; while (microtime(true) < $end && count($a) < 256) { $a[] = str_repeat("x", 16 << 20); } usleep(500000);',
    parallel: 2,
    exec: (s) => [
      'timeout',
      String(s),
      'php',
      '-d',
      'memory_limit=-1',
      '-r',
      '$a = []; for ($i = 0; $i < 256; $i++) { $a[] = str_repeat("x", 16 << 20); } sleep(30);',
    ],
  },
  {
    name: 'fork bomb (500 processes)',
    php: 'shell_exec("for i in $(seq 500); do sleep " . (int) $seconds . " & done; wait");',
    parallel: 1,
    exec: (s) => ['sh', '-c', `for i in $(seq 500); do sleep ${s} & done; wait`],
  },
  {
    name: 'disk fill',
    php: '$f = fopen(__DIR__ . "/fill-php.bin", "w"); $mb = str_repeat("x", 1 << 20); $end = microtime(true) + $seconds; while (microtime(true) < $end && @fwrite($f, $mb) === 1 << 20) {} fclose($f); time_sleep_until(max($end, microtime(true) + 0.01)); @unlink(__DIR__ . "/fill-php.bin");',
    parallel: 1,
    exec: (s) => [
      'sh',
      '-c',
      `timeout ${s} dd if=/dev/zero of=/htdocs/fill-exec.bin bs=1M count=2000 2>/dev/null; sleep ${s}; rm -f /htdocs/fill-exec.bin`,
    ],
  },
]

/** B's front page requested one after another until `until`; answers each request's milliseconds. */
async function requestB(until: () => boolean): Promise<number[]> {
  const times: number[] = []
  while (!until()) {
    const started = performance.now()
    const response = await request(port, quiet.domain)
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`B answered ${response.status}`)
    times.push(performance.now() - started)
  }
  return times
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN
}
const median = (values: readonly number[]) => percentile(values, 50)

/** CPU seconds this process (the bench, the node runtime in it) and the node's masters used, from /proc. */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}
const memAvailableMiB = () =>
  Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024

/** The kernel's count of OOM kills on the whole machine (a container shares it with its host). */
const oomKills = () => Number(/^oom_kill (\d+)/m.exec(readFileSync('/proc/vmstat', 'utf8'))?.[1] ?? 0)

/** The node's long-lived processes that are not A's (nginx, B's PHP-FPM master, MariaDB): none may die. */
function survivorsOutside(uid: number): Map<number, string> {
  const table = new Map<number, string>()
  // The machine's MariaDB (B's database), not one a test started with its own configuration.
  const mariadb = Bun.spawnSync(['pidof', 'mariadbd'])
    .stdout.toString()
    .trim()
    .split(' ')
    .map(Number)
    .filter((pid) => pid > 0 && !processInfo(pid)?.cmdline.includes('--defaults-file=/tmp/'))
  for (const pid of [...processesOf(dataDir), ...mariadb]) {
    const info = processInfo(pid)
    if (!info || info.cmdline.startsWith('php-fpm: pool')) continue
    try {
      if (statSync(`/proc/${pid}`).uid === uid) continue
    } catch {
      continue
    }
    table.set(pid, info.cmdline)
  }
  return table
}

async function resourcesOfA(): Promise<SiteResources | null> {
  return (await runtime.resources([noisy.id]))[0] ?? null
}

/** What A took during an attack: CPU on average over it, and the most memory, processes and disk seen. */
interface Took {
  cpu: number
  memory: number
  processes: number
  disk: number
}

/**
 * Runs `attack` from `source` for `seconds`, sampling A's resources every 250 ms (each reading's CPU is its share since
 * the one before, so their time-weighted mean is A's CPU over the attack); answers what A took, and what an exec job
 * said when it did not end well.
 */
async function attackFrom(attack: Attack, source: 'php' | 'exec', seconds: number) {
  const took: Took = { cpu: 0, memory: 0, processes: 0, disk: 0 }
  let cpuTime = 0
  let sampled = 0
  let sampling = true
  let said = ''
  await resourcesOfA()
  const sampler = (async () => {
    let last = performance.now()
    while (sampling) {
      await Bun.sleep(250)
      const use = await resourcesOfA()
      const now = performance.now()
      if (!use) continue
      cpuTime += use.cpu.used * (now - last)
      sampled += now - last
      last = now
      took.memory = Math.max(took.memory, use.memory.used)
      took.processes = Math.max(took.processes, use.processes.used)
      took.disk = Math.max(took.disk, use.disk.used)
    }
  })()
  try {
    if (source === 'php') {
      await Promise.all(
        Array.from({ length: attack.parallel }, () =>
          request(port, noisy.domain, `/attack.php?seconds=${seconds}&attack=${attacks.indexOf(attack)}`, {
            signal: AbortSignal.timeout((seconds + 20) * 1000),
          })
            .then((response) => response.arrayBuffer())
            .catch(() => {}),
        ),
      )
    } else {
      const shell = (request: Record<string, unknown>) =>
        runtime.call({ siteId: noisy.id, service: 'shell', request }, never)
      const { execId } = (await shell({
        op: 'exec.start',
        argv: attack.exec(seconds),
        cwd: '/htdocs',
        timeoutMs: (seconds + 15) * 1000,
        outputCapBytes: 65_536,
      })) as { execId: string }
      const lines: string[] = []
      for (let after = 0; ; ) {
        const read = (await shell({ op: 'exec.read', execId, after, waitMs: 5_000 })) as {
          next: number
          lines: readonly unknown[]
          outcome: { exitCode?: number | null } | null
        }
        after = read.next
        lines.push(...read.lines.map((line) => JSON.stringify(line)))
        if (read.outcome) {
          if (read.outcome.exitCode !== 0)
            said = `exit ${read.outcome.exitCode}: ${lines.slice(-2).join(' ')}`
          break
        }
      }
    }
  } finally {
    sampling = false
    await sampler
  }
  took.cpu = sampled > 0 ? cpuTime / sampled : 0
  return { took, said }
}

const attackScript = `<?php
$seconds = max(1, min(60, (int) ($_GET['seconds'] ?? 5)));
switch ((int) ($_GET['attack'] ?? -1)) {
${attacks.map((attack, i) => `  case ${i}: ${attack.php} break;`).join('\n')}
}
echo "done\\n";
`

try {
  await runtime.start()
  await root.query('CREATE DATABASE ??', [database])
  await root.query('CREATE USER ?@? IDENTIFIED BY ?', [database, '127.0.0.1', 'Noisy-Db-2026'])
  await root.query('GRANT ALL ON ??.* TO ?@?', [database, database, '127.0.0.1'])
  const passwordHash = (await Bun.password.hash('Noisy-Test-2026', { algorithm: 'bcrypt', cost: 4 })).replace(
    /^\$2b\$/,
    '$2y$',
  )
  await runtime.provision(noisy, never)
  await runtime.provision(
    {
      ...quiet,
      app: {
        kind: 'wordpress',
        settings: {
          title: 'Quiet neighbour',
          database: {
            host: '127.0.0.1',
            port: 3306,
            name: database,
            user: database,
            password: 'Noisy-Db-2026',
          },
          admin: { user: 'admin', email: 'admin@example.test', passwordHash },
        },
      },
    },
    never,
  )
  const htdocs = sitePaths(dataDir, noisy).htdocs
  const owner = statSync(htdocs)
  writeFileSync(join(htdocs, 'attack.php'), attackScript)
  chownSync(join(htdocs, 'attack.php'), owner.uid, owner.gid)
  // Warm B (its PHP worker, OPcache, MariaDB) and A's PHP.
  const warm = Date.now() + 2_000
  await requestB(() => Date.now() > warm)
  await (await request(port, noisy.domain, '/attack.php?seconds=1&attack=-1')).arrayBuffer()

  const survivors = survivorsOutside(owner.uid)
  const oomBefore = oomKills()
  const benchCpu0 = cpuSecondsOf(process.pid)
  const memoryBefore = memAvailableMiB()
  let lowestMemory = memoryBefore
  let requests = 0
  const seconds = Math.round(windowMs / 1000)
  for (const attack of attacks.filter(
    (attack) => !process.env.NOISY_ONLY || attack.name.startsWith(process.env.NOISY_ONLY),
  )) {
    for (const source of ['php', 'exec'] as const) {
      const quietP50: number[] = []
      const quietP99: number[] = []
      const loudP50: number[] = []
      const loudP99: number[] = []
      const cpu: number[] = []
      const most = { memory: 0, processes: 0, disk: 0 }
      const notes = new Set<string>()
      for (let round = 0; round < rounds; round++) {
        const quietEnd = Date.now() + windowMs
        const calm = await requestB(() => Date.now() > quietEnd)
        // The attack outlasts B's window by a second at each end: B is timed while it runs, not while it starts.
        const attackRun = attackFrom(attack, source, seconds + 2)
        await Bun.sleep(1_000)
        const loudEnd = Date.now() + windowMs
        const loud = await requestB(() => Date.now() > loudEnd)
        const { took, said } = await attackRun
        cpu.push(took.cpu)
        most.memory = Math.max(most.memory, took.memory)
        most.processes = Math.max(most.processes, took.processes)
        most.disk = Math.max(most.disk, took.disk)
        if (said) notes.add(said.slice(0, 160))
        quietP50.push(percentile(calm, 50))
        quietP99.push(percentile(calm, 99))
        loudP50.push(percentile(loud, 50))
        loudP99.push(percentile(loud, 99))
        requests += calm.length + loud.length
        lowestMemory = Math.min(lowestMemory, memAvailableMiB())
        // Let the kernel settle (a killed hog's memory, a throttled group's period) before the next quiet window.
        await Bun.sleep(1_000)
      }
      const ratio = median(loudP99) / median(quietP99)
      console.log(
        `${`${attack.name} from ${source}`.padEnd(34)} B p50 ${median(quietP50).toFixed(1)} → ${median(loudP50).toFixed(1)} ms, p99 ${median(quietP99).toFixed(1)} → ${median(loudP99).toFixed(1)} ms (${ratio.toFixed(2)}×${ratio <= 1.5 ? '' : ', ABOVE 1.5×'}); A took cpu ${median(cpu).toFixed(0)} % of ${limits.cpuPercent} % (mean over the attack), at most ${(most.memory / 2 ** 20).toFixed(0)} of ${limits.memoryMB} MiB, ${most.processes} of ${limits.processes} processes, ${(most.disk / 2 ** 20).toFixed(0)} of ${limits.diskMB} MiB disk${notes.size > 0 ? `; the job said: ${[...notes].join(' | ')}` : ''}`,
      )
    }
  }
  const died = [...survivors].filter(([pid]) => processInfo(pid) === null)
  const oomDuring = oomKills() - oomBefore
  const use = await resourcesOfA()
  const benchCpu = cpuSecondsOf(process.pid) - benchCpu0
  console.log(
    `\n${rounds} alternating rounds of ${seconds} s quiet and ${seconds} s attack each; B requested ${requests} times; the bench's process (node runtime included) used ${((benchCpu / requests) * 1000).toFixed(2)} ms CPU a request of B`,
  )
  console.log(
    `node memory available: ${memoryBefore.toFixed(0)} MiB before, lowest ${lowestMemory.toFixed(0)} MiB during the attacks`,
  )
  console.log(
    `A's hits in 24 h as the kernel counted them: cpu ${use?.cpu.hits24h}, memory ${use?.memory.hits24h}, processes ${use?.processes.hits24h}, disk ${use?.disk.hits24h}; enforced: ${(['cpu', 'memory', 'processes', 'disk'] as const).map((kind) => `${kind} ${use?.[kind].enforced}`).join(', ')}`,
  )
  console.log(
    died.length === 0
      ? `nothing outside A died (nginx, B's PHP-FPM, MariaDB: ${survivors.size} processes watched); the machine counted ${oomDuring} OOM kills, A's group ${use?.memory.hits24h ?? '?'} memory hits`
      : `outside A, these died during the attacks: ${died.map(([pid, cmdline]) => `${pid} ${cmdline}`).join('; ')}`,
  )
} finally {
  for (const site of [noisy, quiet]) await runtime.delete(site, never).catch(() => {})
  await root.query('DROP DATABASE IF EXISTS ??', [database]).catch(() => {})
  await root.query('DROP USER IF EXISTS ?@?', [database, '127.0.0.1']).catch(() => {})
  await runtime.stop()
  await root.end()
  rmSync(dataDir, { recursive: true, force: true })
}
