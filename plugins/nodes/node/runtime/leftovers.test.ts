// A master killed alone (SIGKILL: no shutdown of its own) leaves its workers behind: nginx's keep its ports, so a
// new master could not bind, and PHP-FPM's keep serving a pool no reload reaches. The runtime ends what is its own
// (found by its data directory) before it starts the master again, and never touches another runtime's masters;
// a watched runtime does it by itself within seconds.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
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
import { leftoversOf } from './leftovers.ts'
import { childrenOf, processInfo, runningMaster } from './masters.ts'
import { createNginx } from './nginx.ts'
import { createSiteMaster } from './php-fpm.ts'

const ours = servingDataDir('plinth-leftovers-')
const theirs = servingDataDir('plinth-leftovers-other-')
const port = freePort()
const otherPort = freePort()
const runtime = createSiteRuntime({ dataDir: ours, httpPort: port, httpsPort: freePort() })
const other = createSiteRuntime({ dataDir: theirs, httpPort: otherPort, httpsPort: freePort() })
const layout = runtimeLayout(ours)
const site = siteSpec({ id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SL1', handle: 'left', domain: 'left.example.com' })
const neighbour = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SL2',
  handle: 'neighbour',
  domain: 'neighbour.example.com',
})
const sitePaths = siteLayout(layout, site)
/** The site's PHP-FPM master (inside the sandbox the pid file names). */
const fpmMaster = () => {
  const sandbox = pidIn(sitePaths.fpm.pid)
  return sandbox === null ? 0 : (childrenOf(sandbox)[0] ?? 0)
}
const siteMasterSpec = () => {
  const [, , uid, gid] = sh(['getent', 'passwd', sitePaths.user]).stdout.trim().split(':')
  const settings = {
    binary: findBinaries().phpFpm ?? 'php-fpm',
    layout,
    webUser: 'www-data',
    enter: (_: string, argv: readonly string[]) => [...argv],
  }
  return createSiteMaster(settings, sitePaths, {
    name: sitePaths.user,
    uid: Number(uid),
    gid: Number(gid),
    home: sitePaths.home,
  }).spec
}
const alive = (pids: readonly number[]) => pids.filter((pid) => processInfo(pid) !== null)
/** The other runtime's masters and workers: they must come through every test untouched. */
const theirProcesses = () => [...processesOf(theirs)].sort()

beforeAll(async () => {
  await runtime.start()
  await runtime.provision(site, never())
  writeFileSync(join(siteLayout(layout, site).htdocs, 'pid.php'), '<?php echo getmypid();')
  await other.start()
  await other.provision(neighbour, never())
}, 60_000)

afterAll(async () => {
  for (const [each, spec] of [
    [runtime, site],
    [other, neighbour],
  ] as const)
    await each.delete(spec, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  await other.stop().catch(() => {})
  for (const dir of [ours, theirs]) {
    for (const pid of processesOf(dir)) process.kill(pid, 'SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
})

describe('a master killed alone', () => {
  test('nginx: its workers keep the ports; start() ends them and serves again, the other runtime untouched', async () => {
    const before = theirProcesses()
    const master = pidIn(layout.nginx.pid) ?? 0
    const workers = childrenOf(master)
    expect(workers.length).toBeGreaterThan(0)
    process.kill(master, 'SIGKILL')
    await eventually('the master to be gone', () => processInfo(master) === null)
    // What it left: its workers, found by the runtime's data directory (their command line names nothing).
    expect(alive(workers).length).toBeGreaterThan(0)
    const spec = createNginx({
      binary: findBinaries().nginx ?? 'nginx',
      layout,
      httpPort: port,
      httpsPort: 0,
      workerUser: null,
      ipv6: false,
    }).spec
    expect(leftoversOf(spec).sort()).toEqual(alive(workers).sort())

    await runtime.start()
    expect(alive(workers)).toEqual([])
    const again = pidIn(layout.nginx.pid) ?? 0
    expect(again).not.toBe(master)
    expect(processInfo(again)?.cmdline).toContain(`-c ${layout.nginx.conf}`)
    expect((await request(port, site.domain)).status).toBe(200)
    // A change reaches the new master (the orphans would have served the old configuration on).
    await runtime.suspend(site, never())
    expect((await request(port, site.domain)).status).toBe(503)
    await runtime.unsuspend(site, never())
    expect((await request(port, site.domain)).status).toBe(200)
    expect(theirProcesses()).toEqual(before)
    expect((await request(otherPort, neighbour.domain)).status).toBe(200)
  }, 30_000)

  test('PHP-FPM: a site’s master killed takes its workers with it (it is their pid namespace’s init); one whose sandbox alone was killed is ended; PHP is served by a new master', async () => {
    const before = theirProcesses()
    // A request makes the pool's process (pools start them on demand).
    expect((await request(port, site.domain, '/pid.php')).status).toBe(200)
    const sandbox = pidIn(sitePaths.fpm.pid) ?? 0
    const master = fpmMaster()
    const workers = childrenOf(master)
    expect(workers.length).toBeGreaterThan(0)
    process.kill(master, 'SIGKILL')
    await eventually('the master, its workers and its sandbox to be gone', () =>
      [sandbox, master, ...workers].every((pid) => processInfo(pid) === null),
    )
    await runtime.start()
    expect(pidIn(sitePaths.fpm.pid)).not.toBe(sandbox)
    expect((await request(port, site.domain, '/pid.php')).status).toBe(200)

    // The sandbox killed alone: its master runs on, adopted by the node's init, and holds the socket.
    const orphan = fpmMaster()
    process.kill(pidIn(sitePaths.fpm.pid) ?? 0, 'SIGKILL')
    await eventually('the sandbox to be gone', () => runningMaster(siteMasterSpec()) === null)
    expect(processInfo(orphan)).not.toBeNull()
    await runtime.start()
    expect(processInfo(orphan)).toBeNull()
    expect(fpmMaster()).not.toBe(orphan)
    expect((await request(port, site.domain, '/pid.php')).status).toBe(200)
    expect(theirProcesses()).toEqual(before)
  }, 30_000)

  test('watched, the runtime starts a killed master again by itself within seconds', async () => {
    const said: string[] = []
    const unwatch = runtime.watch((_level, _fields, message) => said.push(message))
    try {
      const before = theirProcesses()
      const master = pidIn(layout.nginx.pid) ?? 0
      const workers = childrenOf(master)
      process.kill(master, 'SIGKILL')
      const started = performance.now()
      await eventually(
        'a new nginx master',
        () => {
          const pid = pidIn(layout.nginx.pid)
          return pid !== null && pid !== master && processInfo(pid) !== null && alive(workers).length === 0
        },
        15_000,
      )
      console.log(`nginx killed to a new master: ${(performance.now() - started).toFixed(0)} ms`)
      await runtime.suspend(site, never())
      expect((await request(port, site.domain)).status).toBe(503)
      await runtime.unsuspend(site, never())
      expect((await request(port, site.domain)).status).toBe(200)
      expect(said.join('\n')).toMatch(
        /nginx had stopped \(killed\?\): \d+ leftover processes ended, started again/,
      )
      expect(theirProcesses()).toEqual(before)
    } finally {
      unwatch()
    }
  }, 30_000)

  test('a PHP-FPM master reloading (it runs itself again, a moment without its name) is not taken for a dead one', async () => {
    const spec = siteMasterSpec()
    const master = pidIn(sitePaths.fpm.pid)
    let unseen = 0
    let polling = true
    const poll = (async () => {
      while (polling) {
        if (runningMaster(spec) !== master) unseen++
        await Bun.sleep(0)
      }
    })()
    // Each change of the site's PHP settings reloads its master (SIGUSR2).
    for (const allowFunctions of [['exec'], [], ['exec']])
      await runtime.update({ ...site, allowFunctions }, never())
    polling = false
    await poll
    expect(pidIn(sitePaths.fpm.pid)).toBe(master)
    expect(unseen).toBe(0)
  }, 30_000)

  test('a site’s own nginx and PHP-FPM (the same programs, run from its home as its user, one named as our master) are not taken for ours', async () => {
    const paths = siteLayout(layout, site)
    const binaries = findBinaries()
    const own = join(paths.tmp, 'own')
    mkdirSync(join(own, 'logs'), { recursive: true })
    const ownPort = freePort()
    writeFileSync(
      join(own, 'nginx.conf'),
      `daemon off;\npid ${own}/nginx.pid;\nerror_log ${own}/logs/error.log;\nevents {}\nhttp { access_log ${own}/logs/access.log; ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${own}/${name};`).join(' ')} server { listen 127.0.0.1:${ownPort}; } }\n`,
    )
    writeFileSync(
      join(own, 'fpm.conf'),
      `[global]\npid = ${own}/fpm.pid\nerror_log = ${own}/fpm.log\n[own]\nlisten = ${own}/fpm.sock\npm = static\npm.max_children = 1\n`,
    )
    sh(['chown', '-R', `${paths.user}:${paths.user}`, own])
    const asSite = ['setpriv', `--reuid=${paths.user}`, `--regid=${paths.user}`, '--clear-groups']
    // Its argv[0] names our configuration as our master's command line does (nginx puts it in its title).
    const theirs = [
      Bun.spawn(
        [
          ...asSite,
          'bash',
          '-c',
          `exec -a "${binaries.nginx} -p ${layout.nginx.prefix} -c ${layout.nginx.conf} -e x" ${binaries.nginx} -p ${own}/ -c ${own}/nginx.conf -e ${own}/logs/error.log`,
        ],
        { stdio: ['ignore', 'ignore', 'ignore'] },
      ),
      Bun.spawn(
        [...asSite, binaries.phpFpm ?? 'php-fpm', '--nodaemonize', '--fpm-config', `${own}/fpm.conf`],
        {
          stdio: ['ignore', 'ignore', 'ignore'],
        },
      ),
    ]
    try {
      await eventually(
        'the site’s own nginx and PHP-FPM',
        () => pidIn(`${own}/nginx.pid`) !== null && pidIn(`${own}/fpm.pid`) !== null,
      )
      const siteProcesses = theirs.flatMap((child) => [child.pid, ...childrenOf(child.pid)])
      expect(siteProcesses.length).toBeGreaterThan(2)
      expect(processInfo(theirs[0]?.pid ?? 0)?.cmdline).toContain(` -c ${layout.nginx.conf} -e `)
      for (const master of [layout.nginx.pid, sitePaths.fpm.pid]) {
        const pid = pidIn(master) ?? 0
        process.kill(pid, 'SIGKILL')
        await eventually('the master to be gone', () => processInfo(pid) === null)
      }
      await runtime.start()
      expect(alive(siteProcesses).sort()).toEqual(siteProcesses.sort())
      expect((await request(port, site.domain)).status).toBe(200)
      expect((await request(ownPort, 'own.example.com')).status).toBe(404)
    } finally {
      for (const child of theirs) child.kill('SIGQUIT')
      await Promise.all(theirs.map((child) => child.exited))
    }
  }, 30_000)

  test('a site’s process named as our master, under the pid our killed master had, is not taken for it', async () => {
    const paths = siteLayout(layout, site)
    const master = pidIn(layout.nginx.pid) ?? 0
    process.kill(master, 'SIGKILL')
    await eventually('the master to be gone', () => processInfo(master) === null)
    // The site's user got the pid the master had (pids are given again), in a process whose command line is our
    // master's: the pid file now names it.
    const impostor = Bun.spawn(
      [
        'setpriv',
        `--reuid=${paths.user}`,
        `--regid=${paths.user}`,
        '--clear-groups',
        'bash',
        '-c',
        `exec -a "nginx: master process nginx -p ${layout.nginx.prefix} -c ${layout.nginx.conf} -e x" sleep 30`,
      ],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    )
    try {
      await eventually(
        'the impostor',
        () => processInfo(impostor.pid)?.cmdline.startsWith('nginx: master') ?? false,
      )
      writeFileSync(layout.nginx.pid, `${impostor.pid}\n`)
      await runtime.start()
      const again = pidIn(layout.nginx.pid) ?? 0
      expect(again).not.toBe(impostor.pid)
      expect(processInfo(again)?.cmdline).toContain(`-c ${layout.nginx.conf}`)
      expect(processInfo(impostor.pid)).not.toBeNull()
      await runtime.suspend(site, never())
      expect((await request(port, site.domain)).status).toBe(503)
      await runtime.unsuspend(site, never())
    } finally {
      impostor.kill('SIGKILL')
      await impostor.exited
    }
  }, 30_000)

  test('stop() ends the masters and what killed ones left, and a stopped runtime is not started again by its watch', async () => {
    const unwatch = runtime.watch(() => {})
    try {
      const master = pidIn(layout.nginx.pid) ?? 0
      const workers = childrenOf(master)
      process.kill(master, 'SIGKILL')
      await eventually('the master to be gone', () => processInfo(master) === null)
      await runtime.stop()
      expect(alive(workers)).toEqual([])
      expect(processesOf(ours)).toEqual([])
      await Bun.sleep(3_000)
      expect(processesOf(ours)).toEqual([])
    } finally {
      unwatch()
    }
  }, 30_000)
})
