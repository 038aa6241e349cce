// A serving runtime's sites held to their limits by their groups, end to end: every program a site runs through the
// node contract (NodeSite.run, asUser, enter) lands in its group; its limits are applied on provision and changed
// live on update; suspension and deletion end what it runs, a process forking all the time included; the groups are
// made again from state.json when the node starts; resources() reads use, limits and hits from the kernel.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { NodeService, NodeSite, SiteSpec } from '../contract.ts'
import { nodeCommand, runOperation } from '../operations.ts'
import {
  eventually,
  never,
  processesOf,
  processesOfUid,
  servingDataDir,
  sh,
  siteSpec,
} from '../testing/serving.ts'
import { findBinaries } from './binaries.ts'
import { readCgroupHierarchy } from './cgroup-hierarchy.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { baseGroupName, siteGroups } from './site-groups.ts'

const binaries = findBinaries()
const hierarchy = readCgroupHierarchy()
const usable =
  process.getuid?.() === 0 &&
  binaries.nginx !== null &&
  binaries.phpFpm !== null &&
  (hierarchy.v2 !== null || Object.keys(hierarchy.v1).length > 0)

const dataDir = servingDataDir('plinth-limits-')
const suffix = Math.random().toString(36).slice(2, 8)

/** A service of the test's own: what a node service does with a site, through the node contract alone. */
const probe: NodeService = {
  name: 'probe',
  async handle(site: NodeSite, request: unknown) {
    const { how, script } = request as { how: 'run' | 'asUser' | 'enter'; script: string }
    if (how === 'run') return (await site.run(['/bin/sh', '-c', script], {}, never())).stdout
    const user = site.user
    if (!user) throw new Error('no user')
    const argv =
      how === 'asUser'
        ? site.asUser(['/bin/sh', '-c', script])
        : site.enter([
            'setpriv',
            `--reuid=${user.uid}`,
            `--regid=${user.gid}`,
            '--clear-groups',
            '/bin/sh',
            '-c',
            script,
          ])
    // Left running, as a request of the site's code could leave it.
    const child = Bun.spawn(argv, { stdio: ['ignore', 'ignore', 'ignore'] })
    child.unref()
    return child.pid
  },
}
const settings = {
  dataDir,
  httpPort: freePort(),
  httpsPort: freePort(),
  parts: () => ({ services: [probe], applications: [] }),
}
const runtime = createSiteRuntime(settings)
const layout = runtimeLayout(dataDir)
const site = siteSpec({
  id: `site_limits_${suffix}`,
  handle: `limits-${suffix}`,
  domain: `limits-${suffix}.example.com`,
  cpuPercent: 20,
  memoryMB: 96,
  processes: 40,
})
const base = baseGroupName(realpathSync(dataDir))
const groupDirs = () => siteGroups(realpathSync(dataDir), null).directories(site.id)
const uidOf = (spec: SiteSpec) =>
  Number(sh(['getent', 'passwd', siteLayout(layout, spec).user]).stdout.split(':')[2])
const call = (how: 'run' | 'asUser' | 'enter', script: string) =>
  runtime.call({ siteId: site.id, service: 'probe', request: { how, script } }, never())

afterAll(async () => {
  await runtime.delete(site, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

describe.skipIf(!usable)('a site’s limits on a serving node', () => {
  test('provisioned, the site has its group with its limits, and the node says which kinds it enforces', async () => {
    await runtime.start()
    await runtime.provision(site, never())
    for (const dir of groupDirs()) expect(existsSync(dir)).toBe(true)
    const { limits } = await runtime.capabilities()
    expect(limits?.cpu.enforced).toBe(true)
    expect(limits?.memory.enforced).toBe(true)
    expect(limits?.processes.enforced).toBe(true)
    expect(limits?.disk).toBeDefined()
  })

  test('what a service runs with NodeSite.run, asUser or enter is in the site’s group, as the site’s user', async () => {
    const path = `/${base}/${site.id}`
    const ran = String(await call('run', 'cat /proc/self/cgroup; id -u'))
    expect(ran).toContain(`:${path}\n`)
    expect(ran.trim().split('\n').at(-1)).toBe(String(uidOf(site)))
    for (const how of ['asUser', 'enter'] as const) {
      const pid = Number(await call(how, 'sleep 30'))
      await eventually(`the ${how} process to run as the site`, () => processesOfUid(uidOf(site)).length > 0)
      const inGroup = () => {
        try {
          return readFileSync(`/proc/${pid}/cgroup`, 'utf8')
        } catch {
          return ''
        }
      }
      // The pid is the wrapper's until it execs the program: the same process, placed before it dropped to the user.
      await eventually(`the ${how} process in the site's group`, () => inGroup().includes(`:${path}\n`))
      expect(inGroup()).not.toMatch(/^0::\/$/m)
      process.kill(pid, 'SIGKILL')
    }
  })

  test('what NodeSite.run starts sees no process of the node but its own (its own pid namespace and /proc)', async () => {
    const seen = String(
      await call('run', 'ls /proc | grep -c "^[0-9]"; cat /proc/1/cmdline | tr "\\0\\n" "  "'),
    )
    const [count, first] = seen.trim().split('\n')
    // The namespace's first process is its root init running the command (whose death ends the namespace), the
    // shell reading the second: nothing of the node, no other site, only them and what the shell runs.
    expect(Number(count)).toBeLessThanOrEqual(5)
    expect(first).toContain('plinth-init')
    expect(first).toContain('ls /proc')
  })

  test('resources() reads CPU held to the site’s share, memory, processes and disk against its limits, and counts hits', async () => {
    await call('asUser', 'while :; do :; done & while :; do :; done & wait')
    // The command's first process stays (exec, no fork needed): a pid namespace's processes end with it.
    await call('asUser', 'bomb() { bomb | bomb & }; bomb; exec sleep 30')
    // Measured once the burner's shell and its two loops run as the site: a command starts through its namespace's
    // set-up (mounts, the user dropped to), which a loaded machine can take a second or two over.
    const burning = () =>
      processesOfUid(uidOf(site)).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('while :')
        } catch {
          return false
        }
      }).length
    await eventually('the burner’s loops to run', () => burning() >= 3)
    await runtime.resources([site.id])
    await Bun.sleep(2_000)
    const [read] = await runtime.resources([site.id, 'site_not_here'])
    console.info(`resources: cpu ${read?.cpu.used}% of ${read?.cpu.limit}%, ${read?.processes.used} tasks`)
    expect(read?.siteId).toBe(site.id)
    expect(read?.cpu.limit).toBe(20)
    // At most the share; on a loaded machine possibly less, never nothing.
    expect(read?.cpu.used).toBeLessThanOrEqual(20 * 1.1 + 2)
    expect(read?.cpu.used).toBeGreaterThan(2)
    expect(read?.cpu.hits24h).toBeGreaterThan(0)
    expect(read?.processes.used).toBeLessThanOrEqual(40)
    expect(read?.processes.hits24h).toBeGreaterThan(0)
    expect(read?.memory.limit).toBe(96 * 1024 * 1024)
    expect(read?.memory.used).toBeGreaterThan(0)
    expect(read?.disk.limit).toBe(500 * 1024 * 1024)
    expect(read?.disk.used).toBeGreaterThan(0)
    expect(read?.cpu.enforced && read.memory.enforced && read.processes.enforced).toBe(true)
    // The same through the node's read-only operation, as the panel asks it of the local node and of agents.
    const answered = await runOperation(
      { runtime },
      nodeCommand('resources', { siteIds: [site.id] }),
      never(),
    )
    expect(answered.map((each) => each.siteId)).toEqual([site.id])
    const all = await runOperation({ runtime }, nodeCommand('resources', {}), never())
    expect(all.map((each) => each.siteId)).toContain(site.id)
    await expect(
      runOperation({ runtime }, nodeCommand('resources', { siteIds: 'x' as never }), never()),
    ).rejects.toMatchObject({ code: 'invalid_site_ids' })
    // Kept by the hour in the node's data directory.
    const kept = JSON.parse(readFileSync(join(layout.resources, `${site.id}.json`), 'utf8'))
    expect(Object.keys(kept.hours)).toContain(new Date().toISOString().slice(0, 13))
  }, 20_000)

  test('updated with other limits, the group holds them at once, for what already runs', async () => {
    await runtime.update({ ...site, cpuPercent: 5, processes: 60 }, never())
    await runtime.resources([site.id])
    await Bun.sleep(2_000)
    const [read] = await runtime.resources([site.id])
    console.info(`resources after update: cpu ${read?.cpu.used}% of ${read?.cpu.limit}%`)
    expect(read?.cpu.limit).toBe(5)
    expect(read?.cpu.used).toBeLessThanOrEqual(5 * 1.1 + 2)
    expect(read?.processes.limit).toBe(60)
  }, 20_000)

  test('suspended, every process of the site ends through its group, one forking every few ms behind decoys included', async () => {
    await call(
      'asUser',
      'for i in $(seq 30); do sleep 300 & done; hop() { sleep 0.003; hop & }; hop; sleep 300',
    )
    await Bun.sleep(500)
    const startedAt = performance.now()
    await runtime.suspend(site, never())
    console.info(`suspension with a hopper and decoys took ${(performance.now() - startedAt).toFixed(0)} ms`)
    const procs = groupDirs().map((dir) => readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim())
    expect(procs.every((text) => text === '')).toBe(true)
    await Bun.sleep(200)
    expect(processesOfUid(uidOf(site))).toEqual([])
    await runtime.unsuspend(site, never())
  }, 20_000)

  test('a node started again makes a lost group again with the limits state.json recorded', async () => {
    // A reboot: the groups are lost with everything that ran in them (the site's PHP-FPM master among them).
    await runtime.stop()
    for (const dir of groupDirs()) sh(['rmdir', dir])
    expect(groupDirs().some((dir) => existsSync(dir))).toBe(false)
    const again = createSiteRuntime(settings)
    await again.start()
    for (const dir of groupDirs()) expect(existsSync(dir)).toBe(true)
    // The site's master started again, inside them.
    const master = Number(readFileSync(siteLayout(layout, site).fpm.pid, 'utf8'))
    for (const dir of groupDirs())
      expect(readFileSync(join(dir, 'cgroup.procs'), 'utf8')).toContain(String(master))
    // Unsuspended with the spec's 20 %: what state.json recorded last.
    const [read] = await again.resources([site.id])
    expect(read?.cpu.limit).toBe(20)
    const quota = groupDirs()
      .flatMap((dir) => ['cpu.max', 'cpu.cfs_quota_us'].map((file) => join(dir, file)))
      .find((file) => existsSync(file))
    expect(
      readFileSync(quota ?? '', 'utf8')
        .trim()
        .split(' ')[0],
    ).toBe('20000')
  })

  test('deleted, nothing of it runs and its group and hit counts are gone', async () => {
    const uid = uidOf(site)
    await call('asUser', 'hop() { sleep 0.003; hop & }; hop; sleep 300')
    await runtime.delete(site, never())
    expect(groupDirs().some((dir) => existsSync(dir))).toBe(false)
    expect(existsSync(join(layout.resources, `${site.id}.json`))).toBe(false)
    await Bun.sleep(200)
    expect(processesOfUid(uid)).toEqual([])
    expect(await runtime.resources([site.id])).toEqual([])
  })
})
