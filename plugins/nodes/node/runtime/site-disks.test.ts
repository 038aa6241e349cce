// Disk quotas enforced by the kernel, on this machine's loop devices, nginx and PHP-FPM: a site with a quota gets
// its home on an ext4 image of its own; writes past it fail with ENOSPC from the site's shell and its PHP; its use
// is the filesystem's count at once; the quota grows and shrinks live, never below the use; a restart, and a
// reboot's loss of every mount, mount it again; a plain home (a site from before) is moved onto an image; deleting
// the site leaves no loop device, mount or image.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  existsSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { SiteSpec } from '../contract.ts'
import { never, processesOf, request, servingDataDir, sh, siteSpec } from '../testing/serving.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { mountAt, rootReserveBytes } from './disk-images.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { runtimeCore } from './runtime-core.ts'
import { nodeSiteOf } from './site-calls.ts'
import { diskEnforcement } from './site-disks.ts'

const MiB = 1024 * 1024
const root = process.getuid?.() === 0
const dataDir = servingDataDir('plinth-disks-')
const port = freePort()
const settings = { dataDir, httpPort: port, httpsPort: freePort() }
const runtime = createSiteRuntime(settings)
const layout = runtimeLayout(dataDir)
const core = runtimeCore(settings)
/** The site's group as calls reach it (usedBytes is what is read here, not the group). */
const groups = { enter: core.groups.enter, restore: async () => {} }
const suffix = Math.random().toString(36).slice(2, 8)
const site = siteSpec({
  id: `site_disk${suffix}A`,
  handle: `quota${suffix}`,
  domain: `quota-${suffix}.example.com`,
  diskMB: 20,
})
const legacy = siteSpec({
  id: `site_disk${suffix}B`,
  handle: `legacy${suffix}`,
  domain: `legacy-${suffix}.example.com`,
  diskMB: null,
})
const paths = siteLayout(layout, site)
const legacyPaths = siteLayout(layout, legacy)

/** The mounts under the data directory, deepest first: what a failed test must not leave behind. */
const mountsUnder = (dir: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((point) => point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length)

/** The loop devices whose backing file is under `dir`. */
const loopsUnder = (dir: string) =>
  sh(['losetup', '-a'])
    .stdout.split('\n')
    .filter((line) => line.includes(dir))

/** Runs a shell command as the site's user (its uid and gid, no other group): what its shell and exec jobs are. */
function asSiteUser(spec: SiteSpec, command: string): { code: number; stderr: string } {
  const [, , uid, gid] = sh(['getent', 'passwd', siteLayout(layout, spec).user]).stdout.split(':')
  const result = Bun.spawnSync([
    'setpriv',
    `--reuid=${uid}`,
    `--regid=${gid}`,
    '--clear-groups',
    'sh',
    '-c',
    command,
  ])
  return { code: result.exitCode, stderr: result.stderr.toString() }
}

/** The room the site's filesystem gives (statfs), in bytes. */
const capacityOf = (home: string) => {
  const space = statfsSync(home)
  return space.blocks * space.bsize
}

beforeAll(async () => {
  if (root) await runtime.start()
})

afterAll(async () => {
  // Whatever failed above: no site, master, mount, loop device or image is left behind.
  for (const each of [site, legacy]) await runtime.delete(each, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  for (const point of mountsUnder(dataDir)) sh(['umount', '-l', point])
  for (const line of loopsUnder(dataDir)) sh(['losetup', '-d', line.split(':')[0] ?? ''])
  for (const point of [paths.home, legacyPaths.home]) sh(['chattr', '-i', point])
  rmSync(dataDir, { recursive: true, force: true })
})

describe.if(root)('a site with a disk quota', () => {
  test('the node says it enforces quotas, with an ext4 image per site on a loop device', async () => {
    expect(
      await diskEnforcement(layout, { root: true, serving: true, setup: 'npm run agent -- setup' }),
    ).toEqual({ enforced: true, how: 'ext4 image per site (loop device)' })
    expect(await diskEnforcement(layout, { root: true, serving: false, setup: '' })).toMatchObject({
      enforced: false,
    })
  })

  test('gets its home on an image of its own, as big as the quota, mounted through a loop device', async () => {
    const started = performance.now()
    await runtime.provision(site, never())
    console.log(`provisioned with a 20 MB image in ${Math.round(performance.now() - started)} ms`)
    const mounted = await mountAt(paths.home)
    expect(mounted?.type).toBe('ext4')
    const device = /^\/dev\/(loop\d+)$/.exec(mounted?.source ?? '')?.[1]
    expect(readFileSync(`/sys/block/${device}/loop/backing_file`, 'utf8').trim()).toBe(paths.image)
    // The site's room is its quota (and root's small reserve), give or take a block group's overhead.
    const room = capacityOf(paths.home)
    expect(room).toBeGreaterThanOrEqual(20 * MiB + rootReserveBytes)
    expect(room).toBeLessThanOrEqual(20 * MiB + rootReserveBytes + 5 * MiB)
    // Its folders as on a plain home, the image's lost+found gone, and the image root's alone.
    // The runtime's room held back (site-room.ts) beside them.
    expect(sh(['ls', '-A', paths.home]).stdout.split('\n').filter(Boolean).sort()).toEqual([
      '.plinth-room',
      'htdocs',
      'logs',
      'state.json',
      'tmp',
    ])
    expect((statSync(paths.image).mode & 0o777).toString(8)).toBe('600')
    expect((statSync(layout.disks).mode & 0o777).toString(8)).toBe('700')
    console.log(
      `a 20 MB site's image: ${statSync(paths.image).size / MiB} MiB long, ${(statSync(paths.image).blocks * 512) / MiB} MiB on the node's disk`,
    )
    expect((await request(port, site.domain)).status).toBe(200)
  })

  test('a write past the quota fails with ENOSPC from the site’s shell, and the use is counted at once', async () => {
    const write = asSiteUser(site, `dd if=/dev/zero of=${paths.htdocs}/big bs=1M count=30 conv=fsync`)
    expect(write.code).not.toBe(0)
    expect(write.stderr).toContain('No space left on device')
    // Its temporary folder shares the quota.
    expect(asSiteUser(site, `dd if=/dev/zero of=${paths.tmp}/more bs=1M count=1`).stderr).toContain(
      'No space left on device',
    )
    const used = (await (await nodeSiteOf(layout, groups, site.id)).usedBytes(never())) / MiB
    expect(used).toBeGreaterThan(19)
    expect(used).toBeLessThan(21.5)
    expect((await runtime.report(site)).diskBytes).toBe(
      await (await nodeSiteOf(layout, groups, site.id)).usedBytes(never()),
    )
    // The site's resources: its filesystem's count against its quota, enforced.
    const [resources] = await runtime.resources([site.id])
    expect(resources?.disk).toMatchObject({ limit: 20 * MiB, enforced: true })
    expect(resources?.disk.used).toBeGreaterThan(19 * MiB)
    // Root's reserve: the runtime still records the site's state on a full disk.
    await runtime.suspend(site, never())
    await runtime.unsuspend(site, never())
    rmSync(join(paths.htdocs, 'big'))
    rmSync(join(paths.tmp, 'more'), { force: true })
    expect((await (await nodeSiteOf(layout, groups, site.id)).usedBytes(never())) / MiB).toBeLessThan(1)
  })

  test('a write past the quota fails from the site’s PHP, served by nginx and PHP-FPM', async () => {
    const script = join(paths.htdocs, 'fill.php')
    writeFileSync(
      script,
      `<?php
$chunk = str_repeat('x', 1048576);
$f = fopen(__DIR__ . '/filled.bin', 'w');
$written = 0;
for ($i = 0; $i < 40; $i++) { $n = @fwrite($f, $chunk); if ($n === false || $n < strlen($chunk)) break; $written += $n; }
$flushed = fflush($f); fclose($f);
echo intdiv($written, 1048576), ' ', $flushed ? 'flushed' : 'refused', ' ', error_get_last()['message'] ?? '';
`,
    )
    sh(['chown', `${paths.user}:`, script])
    const answer = await (await request(port, site.domain, '/fill.php')).text()
    const [megabytes] = answer.split(' ')
    expect(Number(megabytes)).toBeLessThan(21)
    expect(answer).toMatch(/No space left on device/)
    rmSync(join(paths.htdocs, 'filled.bin'))
  })

  test('a response its clients do not read fills no more than a few MiB of the node’s disk, outside the quota', async () => {
    // nginx buffers what PHP sends faster than the client reads in its own temporary files (on the node's disk,
    // counted in no site's quota), by default up to 1 GiB a request, the PHP worker freed for the next one: a
    // site's PHP answering big to clients of its own that never read could fill the node's disk.
    const script = join(paths.htdocs, 'big.php')
    writeFileSync(script, `<?php $c = str_repeat('A', 1048576); for ($i = 0; $i < 96; $i++) echo $c;`)
    sh(['chown', `${paths.user}:`, script])
    const temp = join(realpathSync(dataDir), 'nginx', 'temp', 'fastcgi')
    const buffered = () => {
      let bytes = 0
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        const fds = `/proc/${pid}/fd`
        for (const fd of (() => {
          try {
            return readdirSync(fds)
          } catch {
            return []
          }
        })()) {
          try {
            if (readlinkSync(join(fds, fd)).startsWith(temp)) bytes += statSync(join(fds, fd)).size
          } catch {
            // Closed meanwhile.
          }
        }
      }
      return bytes
    }
    const clients = await Promise.all(
      [1, 2, 3].map(() =>
        Bun.connect({
          hostname: '127.0.0.1',
          port,
          socket: { data() {}, open() {} },
        }),
      ),
    )
    try {
      for (const client of clients) {
        client.write(`GET /big.php HTTP/1.1\r\nHost: ${site.domain}\r\n\r\n`)
        // Reads nothing more: the kernel's buffers fill, then nginx's.
        client.pause()
      }
      let most = 0
      const until = Date.now() + 4_000
      while (Date.now() < until) {
        most = Math.max(most, buffered())
        await Bun.sleep(100)
      }
      console.log(`nginx buffered ${(most / MiB).toFixed(1)} MiB for 3 clients that do not read`)
      expect(most).toBeLessThanOrEqual(3 * 8 * MiB)
    } finally {
      for (const client of clients) client.end()
      rmSync(script, { force: true })
    }
  })

  test('a site that used every inode of its image, its placeholder deleted, is still suspended and recorded', async () => {
    // Root's reserve is blocks, not inodes: a site that takes every inode leaves none for the runtime's writes
    // (the placeholder it put back, the temporary file of its state), which must not keep it from suspending it.
    rmSync(paths.placeholder, { force: true })
    const fill = asSiteUser(
      site,
      `mkdir -p ${paths.tmp}/n && i=0; while : > ${paths.tmp}/n/$i; do i=$((i+1)); done`,
    )
    expect(fill.stderr).toContain('No space left on device')
    expect(statfsSync(paths.home).ffree).toBe(0)
    try {
      await runtime.suspend(site, never())
      expect(JSON.parse(readFileSync(paths.state, 'utf8')).state).toBe('suspended')
      expect((await request(port, site.domain, '/')).status).toBe(503)
    } finally {
      rmSync(join(paths.tmp, 'n'), { recursive: true, force: true })
    }
    await runtime.unsuspend(site, never())
    expect(JSON.parse(readFileSync(paths.state, 'utf8')).state).toBe('active')
  })

  test('grows when its quota does, and shrinks when it is lowered, never below what the site uses', async () => {
    let started = performance.now()
    await runtime.update({ ...site, diskMB: 40 }, never())
    console.log(`grown from 20 to 40 MB in ${Math.round(performance.now() - started)} ms`)
    expect(capacityOf(paths.home)).toBeGreaterThanOrEqual(40 * MiB + rootReserveBytes)
    expect(asSiteUser(site, `dd if=/dev/zero of=${paths.htdocs}/big bs=1M count=30`).code).toBe(0)
    // Served again after the resize (offline where the kernel refuses it mounted).
    expect((await request(port, site.domain)).status).toBe(200)

    const before = capacityOf(paths.home)
    await expect(runtime.update({ ...site, diskMB: 20 }, never())).rejects.toMatchObject({
      code: 'disk_quota_below_use',
    })
    expect(capacityOf(paths.home)).toBe(before)
    expect(existsSync(join(paths.htdocs, 'big'))).toBe(true)

    rmSync(join(paths.htdocs, 'big'))
    started = performance.now()
    await runtime.update({ ...site, diskMB: 15 }, never())
    console.log(`shrunk from 40 to 15 MB in ${Math.round(performance.now() - started)} ms`)
    expect(capacityOf(paths.home)).toBeLessThanOrEqual(15 * MiB + rootReserveBytes + 5 * MiB)
    expect(asSiteUser(site, `dd if=/dev/zero of=${paths.htdocs}/big bs=1M count=20`).stderr).toContain(
      'No space left on device',
    )
    rmSync(join(paths.htdocs, 'big'))
    expect((await request(port, site.domain)).status).toBe(200)
  })

  test('a restarted runtime, and one started after a reboot lost every mount and loop device, mount it again', async () => {
    writeFileSync(join(paths.htdocs, 'kept.txt'), 'kept')
    const again = createSiteRuntime(settings)
    await again.start()
    expect(await mountAt(paths.home)).not.toBeNull()

    // What a reboot leaves: no mount, no loop device; the bare mount point refuses writes, even root's.
    await runtime.stop()
    expect(sh(['umount', paths.home]).code).toBe(0)
    expect(loopsUnder(dataDir)).toEqual([])
    expect(await mountAt(paths.home)).toBeNull()
    expect(sh(['touch', join(paths.home, 'x')]).code).not.toBe(0)
    expect(asSiteUser(site, `ls ${paths.home}`).code).not.toBe(0)
    await expect(runtime.report(site)).rejects.toThrow(/not mounted/)

    const rebooted = createSiteRuntime(settings)
    await rebooted.start()
    expect(await mountAt(paths.home)).not.toBeNull()
    expect(readFileSync(join(paths.htdocs, 'kept.txt'), 'utf8')).toBe('kept')
    expect((await request(port, site.domain, '/kept.txt')).status).toBe(200)
  })

  test('a site whose image will not mount is not served, and the others are', async () => {
    await runtime.stop()
    expect(sh(['umount', paths.home]).code).toBe(0)
    const saved = `${paths.image}.saved`
    sh(['mv', paths.image, saved])
    writeFileSync(paths.image, 'not a filesystem')
    try {
      const broken = createSiteRuntime(settings)
      await broken.start()
      expect(await mountAt(paths.home)).toBeNull()
      expect(existsSync(paths.serverBlock)).toBe(false)
      expect((await request(port, site.domain)).status).toBe(404)
      await expect(broken.report(site)).rejects.toThrow(/not mounted/)
    } finally {
      sh(['mv', saved, paths.image])
    }
    // Its next apply mounts it and serves it again.
    await runtime.update(site, never())
    expect((await request(port, site.domain)).status).toBe(200)
  })

  test('a site from before quotas were enforced is moved onto an image: at start, and when its quota is set', async () => {
    // A plain home with a quota recorded: what a site made before this change looks like.
    await runtime.provision(legacy, never())
    expect(await mountAt(legacyPaths.home)).toBeNull()
    expect(await (await nodeSiteOf(layout, groups, legacy.id)).usedBytes(never())).toBeGreaterThan(0)
    // Unlimited: measured with du, and said not to be enforced.
    expect((await runtime.resources([legacy.id]))[0]?.disk).toMatchObject({ limit: null, enforced: false })
    const uid = statSync(legacyPaths.htdocs).uid
    writeFileSync(join(legacyPaths.htdocs, 'page.html'), 'mine')
    sh(['chown', `${legacyPaths.user}:www-data`, join(legacyPaths.htdocs, 'page.html')])
    sh(['chmod', '640', join(legacyPaths.htdocs, 'page.html')])
    symlinkSync('page.html', join(legacyPaths.htdocs, 'link.html'))
    linkSync(join(legacyPaths.htdocs, 'page.html'), join(legacyPaths.htdocs, 'hard.html'))
    const state = JSON.parse(readFileSync(legacyPaths.state, 'utf8'))
    writeFileSync(legacyPaths.state, JSON.stringify({ ...state, diskMB: 30 }))
    expect((await request(port, legacy.domain, '/page.html')).status).toBe(200)

    // What a move stopped half way leaves (an image never put in place, one being copied): the plain home is the site.
    writeFileSync(legacyPaths.image, 'a copy never put in place')
    writeFileSync(`${legacyPaths.image}.new`, 'a copy under way')
    const started = performance.now()
    const restarted = createSiteRuntime(settings)
    await restarted.start()
    console.log(`moved a plain home onto an image at start in ${Math.round(performance.now() - started)} ms`)
    expect(await mountAt(legacyPaths.home)).not.toBeNull()
    const page = lstatSync(join(legacyPaths.htdocs, 'page.html'))
    expect([page.uid, (page.mode & 0o777).toString(8), page.nlink]).toEqual([uid, '640', 2])
    expect(readlinkSync(join(legacyPaths.htdocs, 'link.html'))).toBe('page.html')
    expect(statSync(join(legacyPaths.htdocs, 'hard.html')).ino).toBe(page.ino)
    expect(lstatSync(legacyPaths.htdocs).uid).toBe(uid)
    expect(existsSync(join(layout.trash, `${legacy.id}.plain`))).toBe(false)
    expect((await request(port, legacy.domain, '/page.html')).status).toBe(200)

    // Unlimited again: back to a plain home; and a quota set by an update moves it onto an image once more.
    await runtime.update(legacy, never())
    expect(await mountAt(legacyPaths.home)).toBeNull()
    expect(existsSync(legacyPaths.image)).toBe(false)
    expect(readFileSync(join(legacyPaths.htdocs, 'page.html'), 'utf8')).toBe('mine')
    // A home already past the quota asked is not moved: refused before the site is unserved, nothing changed.
    writeFileSync(join(legacyPaths.htdocs, 'large.bin'), new Uint8Array(3 * MiB))
    await expect(runtime.update({ ...legacy, diskMB: 2 }, never())).rejects.toMatchObject({
      code: 'disk_quota_below_use',
    })
    expect(await mountAt(legacyPaths.home)).toBeNull()
    expect(existsSync(legacyPaths.image)).toBe(false)
    expect((await request(port, legacy.domain, '/page.html')).status).toBe(200)
    rmSync(join(legacyPaths.htdocs, 'large.bin'))
    await runtime.update({ ...legacy, diskMB: 25 }, never())
    expect(await mountAt(legacyPaths.home)).not.toBeNull()
    expect(readFileSync(join(legacyPaths.htdocs, 'page.html'), 'utf8')).toBe('mine')
    expect((await request(port, legacy.domain, '/page.html')).status).toBe(200)
  })

  test('deleting it leaves no mount, loop device or image', async () => {
    await runtime.delete(site, never())
    await runtime.delete(legacy, never())
    expect(mountsUnder(dataDir)).toEqual([])
    expect(loopsUnder(dataDir)).toEqual([])
    expect(existsSync(paths.image)).toBe(false)
    expect(existsSync(paths.home)).toBe(false)
    expect(existsSync(legacyPaths.home)).toBe(false)
  })
})
