// The runtime serving static sites with this machine's nginx and PHP-FPM: masters of its own found again through
// their pid files, a site's user, home, pool and server block, refused configuration taken back, suspension, a
// new domain, traffic, deletion, stopping; and the files-only mode.

import { afterAll, describe, expect, test } from 'bun:test'
import {
  existsSync,
  lchownSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { SiteSpec } from '../contract.ts'
import {
  eventually,
  never,
  pidIn,
  processesOf,
  processesOfUid,
  request,
  servingDataDir,
  sh,
  siteSpec,
} from '../testing/serving.ts'
import { findBinaries } from './binaries.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { childrenOf, processInfo } from './masters.ts'
import { createNginx } from './nginx.ts'
import { createSiteMaster } from './php-fpm.ts'
import { parseStateFile } from './site-state.ts'

const dataDir = servingDataDir('plinth-runtime-')
const port = freePort()
const settings = { dataDir, httpPort: port, httpsPort: freePort() }
const runtime = createSiteRuntime(settings)
const layout = runtimeLayout(dataDir)
const site = siteSpec()
const paths = siteLayout(layout, site)
const other = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SB2',
  handle: 'other',
  domain: 'other.example.com',
})
const moved = siteSpec({ domain: 'new.example.com' })
const binaries = findBinaries()
const filesOnlyDir = mkdtempSync(join(tmpdir(), 'plinth-runtime-files-'))

afterAll(async () => {
  // Whatever failed above: no site's user and no master is left behind.
  for (const each of [moved, other]) await runtime.delete(each, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(filesOnlyDir, { recursive: true, force: true })
})

const block = () => readFileSync(paths.serverBlock, 'utf8')
const text = async (response: Promise<Response>) => {
  const answer = await response
  return { status: answer.status, type: answer.headers.get('content-type'), body: await answer.text() }
}
const userOf = (spec: SiteSpec) => sh(['getent', 'passwd', siteLayout(layout, spec).user])
const uidOf = (spec: SiteSpec) => Number(userOf(spec).stdout.split(':')[2])

describe('the masters', () => {
  test('start() runs an nginx of the runtime’s own (and no PHP-FPM until a site has one); a second start(), and a new runtime on the same data directory, find it running', async () => {
    await runtime.start()
    const nginx = pidIn(layout.nginx.pid)
    expect(processInfo(nginx ?? 0)?.cmdline).toContain(`-c ${layout.nginx.conf}`)
    expect(processesOf(dataDir).filter((pid) => processInfo(pid)?.cmdline.includes('php-fpm'))).toEqual([])
    await runtime.start()
    const again = createSiteRuntime(settings)
    await again.start()
    expect(pidIn(layout.nginx.pid)).toBe(nginx)
    // Its fresh data directory (0700 from mkdtemp) was opened for passage only: nobody else lists it.
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('711')
    expect((await request(port, 'unknown.example.com')).status).toBe(404)
    expect(await runtime.capabilities()).toEqual({
      nginx: expect.stringMatching(/^\d+\.\d+/),
      php: expect.stringMatching(/^\d+\.\d+/),
      // Debian's PHP-FPM names its version (php-fpm8.2): the one version the sites may choose.
      phpVersions: [expect.stringMatching(/^\d+\.\d+$/)],
      unixUsers: process.getuid?.() === 0,
      mode: 'serving',
      // No node module here: no application, no service, and nothing it lacks to serve.
      applications: {},
      services: {},
      missing:
        process.getuid?.() === 0 ? [] : [{ what: 'root (a Unix user per site)', for: 'serving sites' }],
      setup: 'npm run agent -- setup',
      // Its masters run: it serves now.
      readiness: { ready: true, reasons: [] },
      // Which limits it enforces: whatever this machine's kernel offers, said for every kind; disk quotas on an image
      // per site where it runs as root.
      limits: {
        cpu: { enforced: expect.any(Boolean), how: expect.any(String) },
        memory: { enforced: expect.any(Boolean), how: expect.any(String) },
        processes: { enforced: expect.any(Boolean), how: expect.any(String) },
        disk:
          process.getuid?.() === 0
            ? { enforced: true, how: 'ext4 image per site (loop device)' }
            : { enforced: false, how: 'the node does not run as root: it cannot mount' },
      },
      // Its sites' processes are held off the node's own addresses by the kernel, where it is root.
      network:
        process.getuid?.() === 0
          ? { enforced: true, how: expect.stringMatching(/^nftables by site uid \(table inet plinth_sites_/) }
          : { enforced: false, how: expect.stringContaining('does not run as root') },
    })
  })

  test('a port already taken fails start() with nginx’s own words', async () => {
    const taken = Bun.serve({ port: 0, hostname: '0.0.0.0', fetch: () => new Response('someone else') })
    const busyDir = servingDataDir('plinth-runtime-busy-')
    const busy = createSiteRuntime({ dataDir: busyDir, httpPort: taken.port ?? 0, httpsPort: freePort() })
    try {
      await expect(busy.start()).rejects.toThrow(/nginx did not start \(exit 1\):.*Address already in use/s)
    } finally {
      taken.stop(true)
      await busy.stop()
      expect(processesOf(busyDir)).toEqual([])
      rmSync(busyDir, { recursive: true, force: true })
    }
  })

  test('refuses to serve from a directory that holds more than its own files (the panel’s, say), leaving it closed', async () => {
    const panelDir = mkdtempSync(join(tmpdir(), 'plinth-runtime-panel-'))
    try {
      writeFileSync(join(panelDir, 'secret.key'), 'secret')
      const misplaced = createSiteRuntime({ ...settings, dataDir: panelDir, httpPort: freePort() })
      await expect(misplaced.start()).rejects.toThrow(
        /cannot serve from .*holds more than the runtime's files \(secret.key\)/,
      )
      expect((statSync(panelDir).mode & 0o777).toString(8)).toBe('700')
    } finally {
      rmSync(panelDir, { recursive: true, force: true })
    }
  })
})

describe('a static site', () => {
  test('is served through the runtime’s nginx for its Host, with PHP running as the site’s own user, kept to its home', async () => {
    await runtime.provision(site, never())
    const page = await text(request(port, site.domain))
    expect(page.status).toBe(200)
    expect(page.body).toContain('<h1>shop.example.com</h1>')

    const [name, , uid, , , home, shell] = userOf(site).stdout.trim().split(':')
    expect(name).toBe(paths.user)
    expect(name?.length).toBeLessThanOrEqual(32)
    expect([home, shell]).toEqual([paths.home, '/usr/sbin/nologin'])
    const mode = (path: string) => {
      const stats = lstatSync(path)
      return [stats.uid, (stats.mode & 0o7777).toString(8)]
    }
    // Root's home (the user cannot swap its logs for links), the user's documents, readable by nginx's group.
    expect(mode(paths.home)).toEqual([0, '751'])
    expect(mode(paths.logs)).toEqual([0, '750'])
    expect(mode(paths.htdocs)).toEqual([Number(uid), '2750'])
    expect(mode(paths.tmp)).toEqual([Number(uid), '700'])
    expect(mode(paths.state)).toEqual([0, '600'])

    const script = join(paths.htdocs, 'whoami.php')
    writeFileSync(script, "<?php echo posix_getpwuid(posix_geteuid())['name'], ' ', ini_get('open_basedir');")
    lchownSync(script, Number(uid), statSync(paths.htdocs).gid)
    // nginx's workers read every site's files: a link of the site's user to someone else's file is not followed.
    const link = join(paths.htdocs, 'hostname.txt')
    symlinkSync('/etc/hostname', link)
    lchownSync(link, Number(uid), statSync(paths.htdocs).gid)
    expect((await request(port, site.domain, '/hostname.txt')).status).toBe(404)

    const whoami = await text(request(port, site.domain, '/whoami.php'))
    expect(whoami).toMatchObject({
      status: 200,
      body: `${paths.user} ${paths.home}/:/usr/share/php/:${paths.tmp}/`,
    })
  })

  test('provisioning it again changes nothing: the same files, and neither nginx nor PHP-FPM is even reloaded', async () => {
    const files = [paths.serverBlock, paths.pool, paths.placeholder]
    const before = files.map((path) => statSync(path).mtimeMs)
    const workers = childrenOf(pidIn(layout.nginx.pid) ?? 0).sort()
    const master = pidIn(paths.fpm.pid)
    const phpLog = statSync(paths.fpm.log).size
    await runtime.provision(site, never())
    expect(files.map((path) => statSync(path).mtimeMs)).toEqual(before)
    expect(childrenOf(pidIn(layout.nginx.pid) ?? 0).sort()).toEqual(workers)
    expect(pidIn(paths.fpm.pid)).toBe(master)
    expect(statSync(paths.fpm.log).size).toBe(phpLog)
  })

  test('a server block nginx refuses is taken back, and the site goes on being served', async () => {
    const nginx = createNginx({
      binary: binaries.nginx ?? 'nginx',
      layout,
      httpPort: port,
      httpsPort: settings.httpsPort,
      workerUser: 'www-data',
      ipv6: false,
    })
    const good = block()
    const change = nginx.put(paths.serverBlock, good.replace('server_name', 'server_nam'), never())
    await expect(change).rejects.toMatchObject({ code: 'nginx_config_refused' })
    await expect(change).rejects.toThrow(
      /unknown directive "server_nam".*back as it was|back as it was.*unknown directive "server_nam"/s,
    )
    expect(block()).toBe(good)
    await nginx.applyPending()
    expect((await request(port, site.domain)).status).toBe(200)
  })

  test('a pool PHP-FPM refuses is taken back likewise', async () => {
    const [, , uid, gid] = userOf(site).stdout.trim().split(':')
    const phpFpm = createSiteMaster(
      { binary: binaries.phpFpm ?? 'php-fpm', layout, webUser: 'www-data', enter: (_id, argv) => [...argv] },
      paths,
      { name: paths.user, uid: Number(uid), gid: Number(gid), home: paths.home },
    )
    const good = readFileSync(paths.pool, 'utf8')
    const change = phpFpm.put(paths.pool, good.replace('pm = ondemand', 'pm = sometimes'), never())
    await expect(change).rejects.toMatchObject({ code: 'php_fpm_config_refused' })
    expect(readFileSync(paths.pool, 'utf8')).toBe(good)
    await phpFpm.applyPending()
    expect((await request(port, site.domain, '/whoami.php')).status).toBe(200)
  })

  test('suspended, it answers 503 with a small page and its processes end (its pool’s, and one its code left running); unsuspended, it serves again', async () => {
    expect((await request(port, site.domain, '/whoami.php')).status).toBe(200)
    expect(processesOfUid(uidOf(site)).length).toBeGreaterThan(0)
    // What a request of the site could leave behind: a process of its user in a session of its own.
    const uid = uidOf(site)
    const gid = sh(['id', '-g', String(uid)]).stdout.trim()
    const detached = Bun.spawn(
      ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', 'setsid', 'sleep', '300'],
      {
        stdio: ['ignore', 'ignore', 'ignore'],
      },
    )
    await eventually('the detached process to run as the site', () =>
      processesOfUid(uid).includes(detached.pid),
    )
    await runtime.suspend(site, never())
    const page = await text(request(port, site.domain))
    expect(page).toMatchObject({ status: 503, type: 'text/html' })
    expect(page.body).toContain('This site is suspended.')
    expect((await request(port, site.domain, '/whoami.php')).status).toBe(503)
    expect(existsSync(paths.pool)).toBe(false)
    await eventually('the pool’s processes to end', () => processesOfUid(uidOf(site)).length === 0)
    expect(await runtime.report(site)).toMatchObject({ state: 'suspended' })

    await runtime.unsuspend(site, never())
    expect((await request(port, site.domain)).status).toBe(200)
    expect((await request(port, site.domain, '/whoami.php')).status).toBe(200)
    expect(await runtime.report(site)).toMatchObject({ state: 'active' })
  })

  test('moved to a new domain, it is served there (its placeholder renamed) and no longer at the old one', async () => {
    await runtime.update(moved, never())
    const page = await text(request(port, moved.domain))
    expect(page.status).toBe(200)
    expect(page.body).toContain('<h1>new.example.com</h1>')
    expect((await request(port, site.domain)).status).toBe(404)
    expect(block()).toContain('server_name new.example.com;')
  })

  test('traffic() counts the requests and bytes each site served since the last reading', async () => {
    await runtime.provision(other, never())
    await runtime.traffic()
    const bodies = [
      await (await request(port, moved.domain)).text(),
      await (await request(port, moved.domain, '/missing')).text(),
      await (await request(port, moved.domain)).text(),
      await (await request(port, other.domain)).text(),
    ]
    const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').length
    const before = lines(siteLayout(layout, other).accessLog)
    await request(port, other.domain)
    // nginx writes a request's line once it has answered it.
    await eventually('the last request’s log line', () => lines(siteLayout(layout, other).accessLog) > before)
    const readings = await runtime.traffic()
    const of = (id: string) => readings.find((reading) => reading.siteId === id)
    const bodyBytes = bodies.slice(0, 3).reduce((sum, body) => sum + Buffer.byteLength(body), 0)
    expect(of(site.id)).toEqual({
      siteId: site.id,
      requests: 3,
      bytes: expect.any(Number),
      at: expect.any(String),
    })
    // Bytes sent are the bodies and their headers.
    expect(of(site.id)?.bytes).toBeGreaterThan(bodyBytes)
    expect(of(site.id)?.bytes).toBeLessThan(bodyBytes + 3 * 500)
    expect(of(other.id)?.requests).toBe(2)
    expect(await runtime.traffic()).toEqual([])
  })

  test('report() gives its state and the bytes its files take, as its own filesystem counts them (whole blocks)', async () => {
    const before = await runtime.report(moved)
    expect(before.state).toBe('active')
    writeFileSync(join(paths.htdocs, 'photo.jpg'), new Uint8Array(10_000))
    expect(await runtime.report(moved)).toEqual({
      state: 'active',
      diskBytes: before.diskBytes + (process.getuid?.() === 0 ? 12_288 : 10_000),
      certificate: null,
    })
  })

  test('deleted, its domain answers 404 and nothing of it is left: no Unix user, pool, server block, socket or files', async () => {
    const uid = uidOf(moved)
    await runtime.delete(moved, never())
    expect((await request(port, moved.domain)).status).toBe(404)
    expect(userOf(moved).code).toBe(2)
    expect(processesOfUid(uid)).toEqual([])
    for (const path of [
      paths.pool,
      paths.fpm.dir,
      paths.serverBlock,
      paths.socketDir,
      paths.home,
      join(layout.trash, site.id),
    ])
      expect(existsSync(path)).toBe(false)
    await runtime.delete(moved, never())
    expect(await runtime.report(moved)).toEqual({ state: 'absent', diskBytes: 0, certificate: null })
    // The other site is still served.
    expect((await request(port, other.domain)).status).toBe(200)
  })

  test('stop() leaves no process of the runtime running, masters and workers alike', async () => {
    const running = processesOf(dataDir)
    expect(running.length).toBeGreaterThanOrEqual(3)
    await runtime.stop()
    expect(processesOf(dataDir)).toEqual([])
    expect(running.filter((pid) => processInfo(pid) !== null)).toEqual([])
    await expect(request(port, other.domain)).rejects.toThrow()
    await runtime.stop()
  })
})

describe('files only', () => {
  test('with filesOnly, the runtime says so, starts nothing and makes no user, and lays out the site’s files', async () => {
    const files = createSiteRuntime({
      dataDir: filesOnlyDir,
      httpPort: port,
      httpsPort: 443,
      filesOnly: true,
    })
    expect(await files.capabilities()).toMatchObject({ mode: 'files-only', unixUsers: false })
    await files.start()
    const filesLayout = runtimeLayout(filesOnlyDir)
    expect(existsSync(filesLayout.nginx.pid)).toBe(false)
    const spec = siteSpec({ id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SF1', handle: 'files' })
    await files.provision(spec, never())
    const sitePaths = siteLayout(filesLayout, spec)
    expect(userOf(spec).code).toBe(2)
    expect(readFileSync(sitePaths.placeholder, 'utf8')).toContain('<h1>shop.example.com</h1>')
    expect(readFileSync(sitePaths.serverBlock, 'utf8')).not.toContain('fastcgi_pass')
    expect(parseStateFile(readFileSync(sitePaths.state, 'utf8'))).toMatchObject({
      state: 'active',
      unixUser: null,
    })
    await files.stop()
  })
})
