// How many WordPress sites one node runs: provisions NODE_SITES (50) WordPress sites through the node runtime (real
// nginx, PHP-FPM, Debian's WordPress, a MariaDB database each), requests each front page, and measures the memory
// the node's nginx and PHP-FPM take (PSS, so shared pages count once) while every site has a live PHP worker and
// again once the workers went idle, and MariaDB's growth; then extrapolates to the machine's memory and to a 24 GiB
// node, every site live and one in ten live. Each site runs its own PHP-FPM master in its sandbox (bubblewrap): the
// sandbox, the master and its workers are all counted. Also the latency of a site's PHP cold (its worker ended
// after 10 s idle: the pool starts one) and warm.
// `npm run bench:capacity` (as root, with nginx, php-fpm, php-mysql, wordpress and MariaDB on 127.0.0.1:3306).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import mysql from 'mysql2/promise'
import { freePort, nodeWith, processesOf, requestSite as request } from '../hosts/testing/index.ts'
import { descendantsOf } from '../plugins/nodes/node/runtime/masters.ts'
import wordpressNodeModule from '../plugins/wordpress/node/index.ts'

const count = Number(process.env.NODE_SITES ?? 50)
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-capacity-'))
const port = freePort()
const { runtime } = await nodeWith([wordpressNodeModule], { dataDir, httpPort: port, httpsPort: freePort() })
const root = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' })
const run = crypto.randomUUID().slice(0, 6)
const never = new AbortController().signal

/** PSS in KiB of a process (shared pages split between the processes sharing them). */
function pssKiB(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    return Number(/^Pss:\s+(\d+) kB/m.exec(text)?.[1] ?? 0)
  } catch {
    return 0
  }
}
/** The runtime's processes: its masters (their command lines name the data directory) and all below them, once. */
const runtimeProcesses = () => {
  const masters = processesOf(dataDir)
  return [...new Set([...masters, ...masters.flatMap(descendantsOf)])]
}
const nodeMiB = () => runtimeProcesses().reduce((sum, pid) => sum + pssKiB(pid), 0) / 1024
/** The sites' sandboxes alone (bubblewrap's process outside each master). */
const sandboxesMiB = () =>
  runtimeProcesses()
    .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('bwrap\0'))
    .reduce((sum, pid) => sum + pssKiB(pid), 0) / 1024
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
/** How long each site's front page takes, in ms. */
async function latencies(): Promise<number[]> {
  const taken: number[] = []
  for (const site of sites) {
    const started = performance.now()
    const response = await request(port, site.domain)
    await response.arrayBuffer()
    taken.push(performance.now() - started)
  }
  return taken
}
function mariadbMiB(): number {
  const pid = Number(Bun.spawnSync(['pidof', 'mariadbd']).stdout.toString().trim().split(' ')[0])
  return pid ? pssKiB(pid) / 1024 : 0
}

const passwordHash = (
  await Bun.password.hash('Capacity-Test-2026', { algorithm: 'bcrypt', cost: 4 })
).replace(/^\$2b\$/, '$2y$')
const sites = Array.from({ length: count }, (_, i) => ({
  id: `site_capacity_${run}_${i}`,
  handle: `cap-${run}-${i}`,
  domain: `cap-${run}-${i}.example.test`,
  type: 'wordpress',
  customerId: 'cus_capacity',
  diskMB: null,
  name: `cap_${run}_${i}`,
}))

try {
  await runtime.start()
  const baseNode = nodeMiB()
  const baseMaria = mariadbMiB()
  const started = performance.now()
  for (const site of sites) {
    await root.query('CREATE DATABASE ??', [site.name])
    await root.query('CREATE USER ?@? IDENTIFIED BY ?', [site.name, '127.0.0.1', 'Capacity-Db-2026'])
    await root.query('GRANT ALL ON ??.* TO ?@?', [site.name, site.name, '127.0.0.1'])
    const { name: database, ...spec } = site
    await runtime.provision(
      {
        ...spec,
        app: {
          kind: 'wordpress',
          settings: {
            title: `Capacity ${database}`,
            database: {
              host: '127.0.0.1',
              port: 3306,
              name: database,
              user: database,
              password: 'Capacity-Db-2026',
            },
            admin: { user: 'admin', email: 'admin@example.test', passwordHash },
          },
        },
      },
      never,
    )
  }
  const provisionSeconds = (performance.now() - started) / 1000
  // Each site's master started with its provisioning, no request served yet: its OPcache empty.
  const freshNode = nodeMiB()
  for (const site of sites) {
    const response = await request(port, site.domain)
    if (response.status !== 200) throw new Error(`${site.domain} answered ${response.status}`)
    await response.arrayBuffer()
  }
  const warm = median(await latencies())
  // What OPcache holds for one site once its front page ran (each master has its own).
  const probe = join(dataDir, 'sites', sites[0]?.id ?? '', 'htdocs', 'opcache-probe.php')
  await Bun.write(
    probe,
    '<?php echo json_encode(array_intersect_key(opcache_get_status(false) ?: [], ["memory_usage" => 1, "interned_strings_usage" => 1, "opcache_statistics" => 1]));',
  )
  Bun.spawnSync([
    'chown',
    '--reference',
    join(dataDir, 'sites', sites[0]?.id ?? '', 'htdocs', 'index.php'),
    probe,
  ])
  const opcache = await (await request(port, sites[0]?.domain ?? '', '/opcache-probe.php')).text()
  const busyNode = nodeMiB()
  const busyMaria = mariadbMiB()
  await Bun.sleep(15_000)
  const idleNode = nodeMiB()
  const idleSandboxes = sandboxesMiB()
  const cold = median(await latencies())
  const perBusy = (busyNode - baseNode) / count
  const perIdle = (idleNode - baseNode) / count
  const memoryMiB = totalmem() / 2 ** 20
  const diskMiB =
    Number(
      Bun.spawnSync(['du', '-sm', join(dataDir, 'sites')])
        .stdout.toString()
        .split('\t')[0],
    ) / count
  console.log(
    `${count} WordPress sites provisioned in ${provisionSeconds.toFixed(1)} s (${((provisionSeconds / count) * 1000).toFixed(0)} ms each, one after another)`,
  )
  console.log(
    `node (nginx + PHP-FPM) PSS: ${baseNode.toFixed(0)} MiB empty, ${busyNode.toFixed(0)} MiB with every site's PHP worker live, ${idleNode.toFixed(0)} MiB once idle`,
  )
  console.log(
    `a site: ${perBusy.toFixed(1)} MiB while its worker lives, ${perIdle.toFixed(2)} MiB idle; MariaDB grew ${(busyMaria - baseMaria).toFixed(0)} MiB; disk ${diskMiB.toFixed(0)} MiB a site`,
  )
  // A site's own share: its PHP worker and nginx's part, and what MariaDB grew for its database.
  const perSite = perBusy + (busyMaria - baseMaria) / count
  const fits = Math.floor((memoryMiB * 0.8) / perSite)
  const live = perSite
  const tenth = perIdle + 0.1 * (live - perIdle)
  const node24 = 24 * 1024 * 0.8
  console.log(
    `a site's master before its first request: ${((freshNode - baseNode) / count).toFixed(2)} MiB; one site's OPcache after its front page: ${opcache}`,
  )
  console.log(
    `a site's sandbox (bubblewrap) ${(idleSandboxes / count).toFixed(2)} MiB of its idle ${perIdle.toFixed(2)} MiB; front page median ${warm.toFixed(0)} ms warm, ${cold.toFixed(0)} ms cold (its worker started on the request)`,
  )
  console.log(
    `a 24 GiB node (80 % for sites): ${Math.floor(node24 / live)} sites all live, ${Math.floor(node24 / tenth)} with one in ten live`,
  )
  console.log(
    `within ${(memoryMiB / 1024).toFixed(0)} GiB (80 % for sites): ${fits} sites with a live PHP worker each (${perSite.toFixed(1)} MiB a site with MariaDB's share), needing ${((diskMiB * fits) / 1024).toFixed(0)} GiB of disk; idle sites take ${perIdle.toFixed(2)} MiB, so past that disk is the limit`,
  )
} finally {
  for (const site of sites) {
    await runtime.delete(site, never).catch(() => {})
    await root.query('DROP DATABASE IF EXISTS ??', [site.name]).catch(() => {})
    await root.query('DROP USER IF EXISTS ?@?', [site.name, '127.0.0.1']).catch(() => {})
  }
  await runtime.stop()
  await root.end()
  rmSync(dataDir, { recursive: true, force: true })
}
