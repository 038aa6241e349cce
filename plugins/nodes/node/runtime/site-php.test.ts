// A PHP-FPM master per site, with this machine's nginx, PHP-FPM and bubblewrap: a change to one site reloads its
// master alone (another site's long request and a third's latency do not notice), a killed master is started again
// by the watch, each site's PHP sees its own processes, OPcache and temporary space only, its functions are
// disabled as its plan says, a suspended site runs no master, a node whose sites shared one master moves them to
// their own, and the masters' logs are rotated.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  existsSync,
  lchownSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { SiteSpec } from '../contract.ts'
import {
  eventually,
  never,
  pidIn,
  processesOf,
  request,
  servingDataDir,
  sh,
  siteSpec,
} from '../testing/serving.ts'
import { findBinaries } from './binaries.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { childrenOf, processInfo } from './masters.ts'
import { createSharedPhpFpm } from './php-fpm.ts'

const suffix = Math.random().toString(36).slice(2, 7)
const dataDir = servingDataDir('plinth-fpm-')
const port = freePort()
const runtime = createSiteRuntime({
  dataDir,
  httpPort: port,
  httpsPort: freePort(),
  logRotation: { maxBytes: 2_000, keep: 2, everyMs: 0 },
})
const layout = runtimeLayout(dataDir)
const spec = (letter: string, overrides: Partial<SiteSpec> = {}) =>
  siteSpec({
    id: `site_fpm${suffix}${letter}`,
    handle: `fpm${suffix}${letter.toLowerCase()}`,
    domain: `${letter.toLowerCase()}${suffix}.example.com`,
    ...overrides,
  })
// A may run programs (its plan allows exec, so the test can look around from inside); B and C may not.
const a = spec('A', { allowFunctions: ['exec', 'shell_exec'] })
const b = spec('B')
const c = spec('C')
const pathsOf = (site: SiteSpec) => siteLayout(layout, site)
let unwatch = () => {}
const said: string[] = []

/** Writes a PHP script into the site's documents, as its user. */
function script(site: SiteSpec, name: string, code: string): void {
  const paths = pathsOf(site)
  const path = join(paths.htdocs, name)
  writeFileSync(path, `<?php ${code}`)
  const stats = statSync(paths.htdocs)
  lchownSync(path, stats.uid, stats.gid)
}

const body = async (site: SiteSpec, path: string) => {
  const answer = await request(port, site.domain, path)
  return { status: answer.status, text: await answer.text() }
}

/** The site's PHP-FPM master: the one child of the sandbox its pid file names. */
const masterOf = (site: SiteSpec) => {
  const sandbox = pidIn(pathsOf(site).fpm.pid)
  return sandbox === null ? null : (childrenOf(sandbox)[0] ?? null)
}

beforeAll(async () => {
  await runtime.start()
  for (const site of [a, b, c]) await runtime.provision(site, never())
  for (const site of [a, b, c]) {
    script(site, 'hello.php', 'echo "hello ", $_SERVER["HTTP_HOST"];')
    script(site, 'sleep.php', 'sleep((int) ($_GET["s"] ?? 1)); echo "slept";')
  }
  unwatch = runtime.watch((_level, _fields, message) => said.push(message))
}, 60_000)

afterAll(async () => {
  unwatch()
  for (const site of [a, b, c]) await runtime.delete(site, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a master per site', () => {
  test('each active site has its own master, in its sandbox as its user, its socket in a folder of its own', async () => {
    const masters = [a, b, c].map(masterOf)
    expect(new Set(masters).size).toBe(3)
    for (const [index, site] of [a, b, c].entries()) {
      const paths = pathsOf(site)
      const uid = Number(sh(['id', '-u', paths.user]).stdout.trim())
      const master = masters[index] ?? 0
      expect(processInfo(master)?.cmdline).toBe(`php-fpm: master process (${paths.fpm.conf})`)
      expect(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${master}/status`, 'utf8'))?.[1]).toBe(String(uid))
      // Its own pid namespace: it is that namespace's init.
      expect(readlinkSync(`/proc/${master}/ns/pid`)).not.toBe(readlinkSync('/proc/self/ns/pid'))
      expect(/^NSpid:.*\s1$/m.test(readFileSync(`/proc/${master}/status`, 'utf8'))).toBe(true)
      // Inside the site's cgroups from its start (this machine has them): its workers are born there.
      const groups = readFileSync(`/proc/${master}/cgroup`, 'utf8')
      for (const controller of ['memory', 'pids'])
        expect(groups.split('\n').find((line) => line.split(':')[1] === controller)).toEndWith(`/${site.id}`)
      const folder = statSync(paths.socketDir)
      expect([folder.uid, folder.gid, (folder.mode & 0o777).toString(8)]).toEqual([
        uid,
        Number(sh(['getent', 'group', 'www-data']).stdout.split(':')[2]),
        '750',
      ])
      expect(await body(site, '/hello.php')).toEqual({ status: 200, text: `hello ${site.domain}` })
    }
  })

  test('a change of one site reloads its master alone: another site’s long request completes, a third’s PHP stays fast', async () => {
    const masters = [a, c].map(masterOf)
    const long = body(a, '/sleep.php?s=4')
    await Bun.sleep(300)
    const latencies: number[] = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const started = performance.now()
        expect((await body(c, '/hello.php')).status).toBe(200)
        latencies.push(performance.now() - started)
        await Bun.sleep(20)
      }
    })()
    const moved = { ...b, domain: `moved-${b.domain}` }
    const started = performance.now()
    await runtime.update(moved, never())
    const updateMs = performance.now() - started
    expect(await body(moved, '/hello.php')).toEqual({ status: 200, text: `hello ${moved.domain}` })
    await Bun.sleep(300)
    sampling = false
    await sampler
    expect(await long).toEqual({ status: 200, text: 'slept' })
    latencies.sort((x, y) => x - y)
    const worst = latencies.at(-1) ?? Number.POSITIVE_INFINITY
    console.log(
      `B's domain change took ${updateMs.toFixed(0)} ms while A slept 4 s; C's PHP meanwhile: ${latencies.length} requests, p50 ${latencies[Math.floor(latencies.length / 2)]?.toFixed(1)} ms, worst ${worst.toFixed(1)} ms`,
    )
    // With one master for all, the reload waited for A's request (up to 10 s) and every site's PHP with it.
    expect(updateMs).toBeLessThan(3_000)
    expect(worst).toBeLessThan(500)
    expect([a, c].map(masterOf)).toEqual(masters)
    await runtime.update(b, never())
  }, 30_000)

  test('a killed master is started again by the watch within seconds', async () => {
    const master = masterOf(a) ?? 0
    process.kill(master, 'SIGKILL')
    const started = performance.now()
    await eventually(
      'a new master for A',
      () => {
        const again = masterOf(a)
        return again !== null && again !== master
      },
      15_000,
    )
    // Its new master says it is ready once its socket listens.
    await eventually(
      'A’s new master ready',
      () => readFileSync(pathsOf(a).fpm.log, 'utf8').split('ready to handle connections').length > 2,
    )
    expect((await body(a, '/hello.php')).status).toBe(200)
    console.log(`A's master killed to a new one: ${(performance.now() - started).toFixed(0)} ms`)
    // The watch says so once its round ends (after the master it started is ready): a moment after, on a loaded machine.
    await eventually('the watch to say so', () =>
      /1 sites' PHP-FPM had stopped \(killed\?\): started again/.test(said.join('\n')),
    )
  }, 30_000)

  test('a site’s PHP sees its own processes only, its own /tmp, /var/tmp and /dev/shm', async () => {
    script(a, 'ps.php', 'echo shell_exec("ps -eo pid=,comm=");')
    const listed = (await body(a, '/ps.php')).text.trim().split('\n')
    const names = new Set(listed.map((line) => line.trim().split(/\s+/)[1]))
    // Its master (pid 1), its workers, and the shell and ps of this very request.
    expect(listed.some((line) => /^1\s+php-fpm/.test(line.trim()))).toBe(true)
    for (const name of names) expect(['php-fpm8.2', 'php-fpm', 'sh', 'ps']).toContain(name ?? '')
    expect(listed.length).toBeLessThan(10)
    expect(readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length).toBeGreaterThan(
      listed.length + 20,
    )

    const marker = `m${suffix}`
    script(
      a,
      'tmp.php',
      `exec("echo t > /tmp/${marker} && echo v > /var/tmp/${marker}v && echo s > /dev/shm/${marker}s"); echo implode(",", scandir("${pathsOf(a).tmp}"));`,
    )
    const listing = (await body(a, '/tmp.php')).text
    expect(listing).toContain(marker)
    expect(readFileSync(join(pathsOf(a).tmp, marker), 'utf8')).toBe('t\n')
    expect(readFileSync(join(pathsOf(a).tmp, `${marker}v`), 'utf8')).toBe('v\n')
    // Not the node's: /tmp and /dev/shm outside hold none of it.
    for (const path of [`/tmp/${marker}`, `/var/tmp/${marker}v`, `/dev/shm/${marker}s`])
      expect(existsSync(path)).toBe(false)
  })

  test('OPcache is each master’s: a site lists only its own scripts, and resetting it touches no other site', async () => {
    await body(b, '/hello.php')
    await body(a, '/hello.php')
    script(a, 'cache.php', 'echo json_encode(array_keys(opcache_get_status(true)["scripts"] ?? []));')
    script(b, 'cache.php', 'echo json_encode(array_keys(opcache_get_status(true)["scripts"] ?? []));')
    const seen = JSON.parse((await body(a, '/cache.php')).text) as string[]
    expect(seen).toContain(join(pathsOf(a).htdocs, 'hello.php'))
    for (const path of seen) expect(path.startsWith(`${pathsOf(a).home}/`)).toBe(true)
    script(a, 'reset.php', 'var_export(opcache_reset());')
    expect((await body(a, '/reset.php')).text).toBe('true')
    const other = JSON.parse((await body(b, '/cache.php')).text) as string[]
    expect(other).toContain(join(pathsOf(b).htdocs, 'hello.php'))
  })

  test('disable_functions holds by default, and a plan’s allowFunctions relaxes it', async () => {
    const check =
      'echo json_encode(array_map("function_exists", ["exec", "shell_exec", "proc_open", "putenv", "pcntl_fork", "posix_kill", "dl", "strlen"]));'
    script(a, 'functions.php', check)
    script(b, 'functions.php', check)
    expect(JSON.parse((await body(b, '/functions.php')).text)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ])
    expect(JSON.parse((await body(a, '/functions.php')).text)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      true,
    ])
    script(b, 'exec.php', 'exec("id");')
    expect((await body(b, '/exec.php')).status).toBe(500)
    expect(readFileSync(pathsOf(b).fpm.conf, 'utf8')).toContain('rlimit_core = 0')
    // Names that are not PHP functions' are refused before anything is written.
    await expect(runtime.update({ ...b, allowFunctions: ['exec"; x'] }, never())).rejects.toMatchObject({
      code: 'unsafe_site_spec',
    })
  })

  test('a suspended site runs no master; unsuspended, it has one again', async () => {
    const sandbox = pidIn(pathsOf(c).fpm.pid) ?? 0
    await runtime.suspend(c, never())
    expect(processInfo(sandbox)).toBeNull()
    expect(existsSync(pathsOf(c).pool)).toBe(false)
    expect(existsSync(pathsOf(c).socketDir)).toBe(false)
    // The watch does not start it again.
    await Bun.sleep(2_500)
    expect(masterOf(c)).toBeNull()
    await runtime.unsuspend(c, never())
    expect(masterOf(c)).not.toBeNull()
    expect((await body(c, '/hello.php')).status).toBe(200)
  }, 15_000)

  test('the masters’ logs are rotated past their size, and each master writes to its new log', async () => {
    const paths = pathsOf(b)
    // Reloads write to B's master's log until it passes the size; the watch rotates it.
    for (const allowFunctions of [['exec'], [], ['exec'], []])
      await runtime.update({ ...b, allowFunctions }, never())
    await eventually('B’s log rotated', () => existsSync(`${paths.fpm.log}.1`), 10_000)
    const master = masterOf(b) ?? 0
    await eventually('B’s master writing to its new log', () =>
      readdirSync(`/proc/${master}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${master}/fd/${fd}`) === paths.fpm.log
        } catch {
          return false
        }
      }),
    )
    const logStats = statSync(paths.fpm.log)
    expect([logStats.uid, (logStats.mode & 0o777).toString(8)]).toEqual([0, '620'])
    await runtime.update({ ...b, allowFunctions: ['exec'] }, never())
    expect(readFileSync(paths.fpm.log, 'utf8')).toContain('ready to handle connections')
    // nginx's error log too, reopened by nginx (SIGUSR1).
    writeFileSync(layout.nginx.errorLog, 'x'.repeat(3_000), { flag: 'a' })
    await eventually('nginx’s error log rotated', () => existsSync(`${layout.nginx.errorLog}.1`), 10_000)
    const nginx = pidIn(layout.nginx.pid) ?? 0
    await eventually('nginx writing to its new error log', () =>
      readdirSync(`/proc/${nginx}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${nginx}/fd/${fd}`) === layout.nginx.errorLog
        } catch {
          return false
        }
      }),
    )
    // A site's access log too: nginx is reloaded (its workers could not open a file in the site's root-owned
    // `logs/` on SIGUSR1), so the next request is written to the new log, not to the rotated one.
    writeFileSync(paths.accessLog, `${'x'.repeat(3_000)}\n`, { flag: 'a' })
    await eventually('B’s access log rotated', () => existsSync(`${paths.accessLog}.1`), 10_000)
    // Until the watch has reloaded nginx, a request may still go to the rotated log: asked again until one does not.
    const deadline = Date.now() + 10_000
    while (!readFileSync(paths.accessLog, 'utf8').includes('/after-rotation')) {
      if (Date.now() > deadline) throw new Error('no request reached the new access log')
      await (await request(port, b.domain, '/after-rotation')).arrayBuffer()
      await Bun.sleep(100)
    }
    await runtime.update(b, never())
  }, 30_000)
})

describe('a node whose sites shared one master', () => {
  test('moves each site to its own master on start, then stops the shared one', async () => {
    unwatch()
    unwatch = () => {}
    const paths = pathsOf(c)
    const binaries = findBinaries()
    const { php } = layout
    const oldSocket = join(php.run, `${paths.user}.sock`)
    // The layout of earlier runtimes: one master, a pool per site running as its user, the server block sending to
    // its socket.
    await runtime.stop()
    rmSync(paths.fpm.dir, { recursive: true, force: true })
    rmSync(paths.socketDir, { recursive: true, force: true })
    sh(['mkdir', '-p', php.shared.pools])
    writeFileSync(
      php.shared.conf,
      `[global]\npid = "${php.shared.pid}"\nerror_log = "${php.shared.log}"\ndaemonize = no\ninclude = "${php.shared.pools}/*.conf"\n`,
    )
    writeFileSync(
      join(php.shared.pools, '_idle.conf'),
      `[_idle]\nuser = www-data\ngroup = www-data\nlisten = "${php.run}/_idle.sock"\npm = ondemand\npm.max_children = 1\n`,
    )
    writeFileSync(
      join(php.shared.pools, `${c.id}.conf`),
      `[${c.id}]\nuser = ${paths.user}\ngroup = ${paths.user}\nlisten.owner = www-data\nlisten.group = www-data\nlisten = "${oldSocket}"\nlisten.mode = 0660\npm = ondemand\npm.max_children = 5\n`,
    )
    writeFileSync(
      paths.serverBlock,
      readFileSync(paths.serverBlock, 'utf8').replaceAll(paths.socket, oldSocket),
    )
    const shared = createSharedPhpFpm({ binary: binaries.phpFpm ?? 'php-fpm', layout })
    await shared.start()
    const sharedPid = shared.running()
    expect(sharedPid).not.toBeNull()

    await runtime.start()
    expect(processInfo(sharedPid ?? 0)).toBeNull()
    for (const path of [php.shared.conf, php.shared.pools, oldSocket]) expect(existsSync(path)).toBe(false)
    expect(readFileSync(paths.serverBlock, 'utf8')).toContain(paths.socket)
    expect(masterOf(c)).not.toBeNull()
    expect((await body(c, '/hello.php')).status).toBe(200)
    // The others, whose masters the stop ended, run theirs again.
    for (const site of [a, b]) expect((await body(site, '/hello.php')).status).toBe(200)
    expect((await runtime.inventory()).strays).toEqual([])
    // A master's folder of no site the node keeps is a stray pool.
    sh(['mkdir', '-p', join(php.sites, 'site_ghost')])
    expect((await runtime.inventory()).strays).toEqual([{ kind: 'pool', name: 'site_ghost' }])
    rmSync(join(php.sites, 'site_ghost'), { recursive: true })
  }, 60_000)
})
