// A cgroup per site: every process a site runs is placed in it as root before it drops to the site's user, so the
// kernel holds them all to the site's CPU, memory and process limits, counts what they use, and ends them together.
// Each limit goes where the node has its controller (a v2 tree, or v1 controllers mounted one by one, or both);
// ending uses v2's `cgroup.kill` where there is one, else v1's freezer (freeze, kill, thaw, until empty).

import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { LimitEnforcement, ResourceKind, SiteSpec } from '../contract.ts'
import {
  type CgroupHierarchy,
  readCgroupHierarchy,
  type V1Controller,
  v2Controllers,
} from './cgroup-hierarchy.ts'
import { isSafeSiteId } from './site-spec.ts'

/** What a site's group counts, read from the kernel: cumulative counters, and use now. */
export interface GroupUsage {
  /** CPU time its processes took since the group was made, in nanoseconds. */
  readonly cpuNanos: number
  /** Memory its processes take now (their page cache and `/dev/shm` included), in bytes. */
  readonly memoryBytes: number
  /** Tasks (processes and threads) in it now. */
  readonly tasks: number
  /** Periods its processes were throttled at the CPU limit (cumulative). */
  readonly cpuHits: number
  /** Times its memory reached the limit (cumulative: v2 `memory.events` max, v1 `memory.failcnt`). */
  readonly memoryHits: number
  /** Forks refused at the process limit (cumulative: `pids.events` max). */
  readonly processHits: number
}

/** What a site's group is made from: the site's id and limits. */
export type GroupLimits = Pick<SiteSpec, 'id' | 'cpuPercent' | 'memoryMB' | 'processes'>

/** A node's sites' groups. */
export interface SiteGroups {
  /** Whether sites' processes are placed in groups at all (the node runs as root and has a writable hierarchy). */
  readonly available: boolean
  /**
   * Makes the site's group, or brings it to the site's limits (`cpuPercent`, `memoryMB`, `processes`; null or absent:
   * unlimited), live for what runs in it.
   */
  apply(site: GroupLimits): Promise<void>
  /** Makes the site's group with its limits when it has none (the machine rebooted since); else leaves it as it is. */
  ensure(site: GroupLimits): Promise<void>
  /**
   * The command line that, run as root, places itself in the site's group, forbids core dumps, then runs `argv` (which
   * drops to the site's user if it should): what `argv` starts can never be outside. It fails (exit 125) without
   * running `argv` when the group is missing. Where groups are not available it only forbids core dumps.
   */
  enter(siteId: string, argv: readonly string[]): string[]
  /**
   * Ends every process in the site's group, and resolves once the kernel lists none (a site forking all along
   * included); throws when some are left after a bounded time. Nothing to do for a site without a group.
   */
  end(siteId: string): Promise<void>
  /** Ends the site's processes and removes its group (and the runtime's base, once it holds no site). */
  remove(siteId: string): Promise<void>
  /** Whether the site's group is there in every hierarchy (true where groups are not available: nothing to make). */
  has(siteId: string): boolean
  /** The pids in the site's group now (empty when it has none). */
  members(siteId: string): Promise<number[]>
  /** What the site's group counts, or null when it has none. */
  usage(siteId: string): Promise<GroupUsage | null>
  /** Which kinds of limit the groups enforce here, and how, or why not (`disk` is not theirs: never enforced here). */
  enforcement(): Record<ResourceKind, LimitEnforcement>
  /** The group's path as `/proc/<pid>/cgroup` shows it (`/plinth-<hash>/<site id>`). */
  pathOf(siteId: string): string
  /** The site's group's directories, one per hierarchy used (none where groups are not available). */
  directories(siteId: string): string[]
}

/** How long {@link SiteGroups.end} keeps at it before it throws. */
const endWithinMs = 10_000
/** The CFS period every CPU limit is written against: 100 ms, the kernel's default. */
const cpuPeriodUs = 100_000
/** The highest pids.max the kernel takes (PID_MAX_LIMIT on 64-bit). */
const pidCeiling = 4_194_304
/** The lowest memory limit written. */
const lowestMemoryMB = 16

/** Where each kind is enforced, decided once from the node's hierarchies. */
interface Plan {
  /** The runtime's base group in the v2 tree, or null. */
  readonly v2Base: string | null
  /** Controllers the v2 base hands its sites' groups. */
  readonly v2Enabled: ReadonlySet<string>
  /** The runtime's base group in each v1 controller used (where the v2 tree lacks that controller). */
  readonly v1Base: Readonly<Partial<Record<V1Controller, string>>>
  /** Every base, v2 first: a site's group is `<base>/<site id>` in each. */
  readonly bases: readonly string[]
}

const readText = async (path: string) => (await readFile(path, 'utf8')).trim()
const readNumber = async (path: string) => Number(await readText(path).catch(() => '0')) || 0
/** A `key value` line of a flat-keyed file (`cpu.stat`, `memory.events`, `pids.events`), 0 when absent. */
const keyed = async (path: string, key: string) => {
  const text = await readText(path).catch(() => '')
  return Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
}
const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT'

/** The name of the runtime's base group: one per data directory, so two runtimes on one machine never share one. */
export function baseGroupName(dataDir: string): string {
  return `plinth-${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`
}

/** Decides where each kind goes; enables the v2 controllers in the tree's root when it offers them unenabled. */
function planOf(hierarchy: CgroupHierarchy, base: string): Plan {
  const { v2, v1 } = hierarchy
  let v2Enabled = new Set<string>()
  if (v2) {
    const rootControl = join(v2, 'cgroup.subtree_control')
    const enabled = () => new Set(readFileSync(rootControl, 'utf8').trim().split(/\s+/))
    try {
      const wanted = v2Controllers.filter((name) => hierarchy.v2Available.includes(name))
      const lacking = wanted.filter((name) => !enabled().has(name))
      // The root group may hold processes and still hand controllers down; a namespace's root may refuse (EBUSY).
      if (lacking.length > 0)
        try {
          writeFileSync(rootControl, lacking.map((name) => `+${name}`).join(' '))
        } catch {
          // Then those kinds go to v1, or are said not enforced.
        }
      v2Enabled = new Set(wanted.filter((name) => enabled().has(name)))
    } catch {
      v2Enabled = new Set()
    }
  }
  const v1Base: Partial<Record<V1Controller, string>> = {}
  const takeV1 = (controller: V1Controller) => {
    const mount = v1[controller]
    if (mount) v1Base[controller] = join(mount, base)
  }
  if (!v2Enabled.has('cpu')) {
    takeV1('cpu')
    takeV1('cpuacct')
  }
  if (!v2Enabled.has('memory')) takeV1('memory')
  if (!v2Enabled.has('pids')) takeV1('pids')
  // Ending goes through v2's cgroup.kill where the kernel has it (5.14), else through the freezer.
  if (!v2 || !killSupported()) takeV1('freezer')
  const v2Base = v2 ? join(v2, base) : null
  const bases = [...new Set([...(v2Base ? [v2Base] : []), ...Object.values(v1Base)])]
  return { v2Base, v2Enabled, v1Base, bases }
}

/** Whether the kernel has `cgroup.kill` (Linux 5.14 and later). */
function killSupported(): boolean {
  const [major = 0, minor = 0] = (readFileSync('/proc/sys/kernel/osrelease', 'utf8').match(/\d+/g) ?? []).map(
    Number,
  )
  return major > 5 || (major === 5 && minor >= 14)
}

/**
 * The groups of the runtime over `dataDir`: under `plinth-<hash of dataDir>` in each hierarchy. `unavailable` says why
 * the runtime makes none (it does not run as root, or runs no site's processes as the site's user); then
 * {@link SiteGroups.enforcement} says so for every kind.
 */
export function siteGroups(
  dataDir: string,
  unavailable: string | null,
  hierarchy?: () => CgroupHierarchy,
): SiteGroups {
  const root = unavailable === null
  const base = baseGroupName(dataDir)
  let planned: Plan | null = null
  const plan = (): Plan => {
    planned ??= planOf((hierarchy ?? readCgroupHierarchy)(), base)
    return planned
  }
  const available = () => root && plan().bases.length > 0
  const siteDir = (baseDir: string, siteId: string) => join(baseDir, siteId)
  const dirsOf = (siteId: string) => {
    // Root writes in these directories: a name that could climb out of the base is never one.
    if (!isSafeSiteId(siteId))
      throw new Error(`No site group for ${JSON.stringify(String(siteId).slice(0, 140))}: not a site id`)
    return plan().bases.map((baseDir) => siteDir(baseDir, siteId))
  }
  /** The group whose `cgroup.procs` lists every member: the v2 one, else the first v1 one. */
  const listing = (siteId: string) => dirsOf(siteId)[0] ?? null

  /** The bases made, the v2 one handing its sites' groups the controllers it enforces with. */
  const ensureBases = async () => {
    const { bases, v2Base, v2Enabled } = plan()
    for (const dir of bases) await mkdir(dir, { recursive: true })
    if (v2Base && v2Enabled.size > 0) {
      const control = join(v2Base, 'cgroup.subtree_control')
      const has = new Set((await readText(control).catch(() => '')).split(/\s+/))
      const lacking = [...v2Enabled].filter((name) => !has.has(name))
      if (lacking.length > 0) await writeFile(control, lacking.map((name) => `+${name}`).join(' '))
    }
  }

  const writeCpu = async (siteId: string, cpuPercent: number | null) => {
    const { v2Base, v2Enabled, v1Base } = plan()
    const quota = cpuPercent === null ? null : Math.max(1_000, Math.round(cpuPercent * 1_000))
    if (v2Base && v2Enabled.has('cpu'))
      await writeFile(join(siteDir(v2Base, siteId), 'cpu.max'), `${quota ?? 'max'} ${cpuPeriodUs}`)
    else if (v1Base.cpu) {
      const dir = siteDir(v1Base.cpu, siteId)
      await writeFile(join(dir, 'cpu.cfs_period_us'), String(cpuPeriodUs))
      await writeFile(join(dir, 'cpu.cfs_quota_us'), String(quota ?? -1))
    }
  }
  const writeMemory = async (siteId: string, memoryMB: number | null) => {
    const { v2Base, v2Enabled, v1Base } = plan()
    // At least 16 MB (the panel's lowest): a limit stored as 0 before it was bounded would kill the site's every
    // process at its first page.
    const bytes = memoryMB === null ? null : Math.max(memoryMB, lowestMemoryMB) * 1024 * 1024
    if (v2Base && v2Enabled.has('memory')) {
      const dir = siteDir(v2Base, siteId)
      await writeFile(join(dir, 'memory.max'), bytes === null ? 'max' : String(bytes))
      // No swap: a site at its limit is held there (its allocations fail, or the kernel kills inside the group).
      if (existsSync(join(dir, 'memory.swap.max')))
        await writeFile(join(dir, 'memory.swap.max'), bytes === null ? 'max' : '0')
    } else if (v1Base.memory) {
      const dir = siteDir(v1Base.memory, siteId)
      const limit = join(dir, 'memory.limit_in_bytes')
      const withSwap = join(dir, 'memory.memsw.limit_in_bytes')
      const value = bytes === null ? '-1' : String(bytes)
      try {
        // memsw (memory and swap together) may never be below the memory limit: raised first, lowered last.
        if (!existsSync(withSwap)) await writeFile(limit, value)
        else if (bytes === null || bytes > (await readNumber(limit))) {
          await writeFile(withSwap, value)
          await writeFile(limit, value)
        } else {
          await writeFile(limit, value)
          await writeFile(withSwap, value)
        }
      } catch (error) {
        // v1 refuses a limit below what the group holds and cannot reclaim (v2 kills inside the group instead).
        if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error
        throw new Error(
          `Site ${siteId} holds more memory than its new limit of ${memoryMB} MB and the kernel could not reclaim it: tried again later`,
        )
      }
    }
  }
  const writeProcesses = async (siteId: string, processes: number | null) => {
    const { v2Base, v2Enabled, v1Base } = plan()
    const dir = v2Base && v2Enabled.has('pids') ? v2Base : (v1Base.pids ?? null)
    // The kernel takes no pids.max above its pid ceiling (2^22): a larger limit (stored before the panel bounded
    // it) is the ceiling, never a refusal that would leave the site's every update failing.
    const value = processes === null ? 'max' : String(Math.min(processes, pidCeiling))
    if (dir) await writeFile(join(siteDir(dir, siteId), 'pids.max'), value)
  }

  const members = async (siteId: string): Promise<number[]> => {
    if (!available()) return []
    const pids = new Set<number>()
    for (const dir of dirsOf(siteId)) {
      const text = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch((error) => {
        if (missing(error)) return ''
        throw error
      })
      for (const line of text.split('\n')) if (line) pids.add(Number(line))
    }
    return [...pids]
  }

  const killAll = (pids: readonly number[]) => {
    for (const pid of pids)
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone meanwhile.
      }
  }

  /** v2: the kernel kills every member, and any it forks meanwhile, in one write. */
  const endByKill = async (dir: string) => {
    await writeFile(join(dir, 'cgroup.kill'), '1')
  }
  /** v1: frozen, nothing forks while each member gets SIGKILL; thawed, they die. Repeated until none are left. */
  const endByFreezer = async (dir: string, siteId: string) => {
    const state = join(dir, 'freezer.state')
    await writeFile(state, 'FROZEN')
    // A task in the middle of a fork can hold the group in FREEZING for a while: kill what is listed anyway, and go
    // round again (what it forked is in the group, and listed next time).
    const frozenBy = Date.now() + 100
    while ((await readText(state)) !== 'FROZEN' && Date.now() < frozenBy) await Bun.sleep(2)
    killAll(await members(siteId))
    await writeFile(state, 'THAWED')
  }

  const end = async (siteId: string) => {
    if (!available()) return
    const { v2Base, v1Base } = plan()
    const v2Dir = v2Base ? siteDir(v2Base, siteId) : null
    const killable = v2Dir !== null && existsSync(join(v2Dir, 'cgroup.kill'))
    const freezer = v1Base.freezer ? siteDir(v1Base.freezer, siteId) : null
    const deadline = Date.now() + endWithinMs
    let left = await members(siteId)
    while (left.length > 0) {
      if (Date.now() > deadline)
        throw new Error(
          `Site ${siteId}'s processes would not end within ${endWithinMs / 1000} s: ${left.length} left (${left.slice(0, 10).join(', ')})`,
        )
      if (killable && v2Dir) await endByKill(v2Dir)
      else if (freezer && existsSync(freezer)) await endByFreezer(freezer, siteId)
      else killAll(left)
      // The kernel takes a killed process out of the group once it exits: a few ms.
      for (let wait = 0; wait < 25 && left.length > 0; wait++) {
        await Bun.sleep(2)
        left = await members(siteId)
      }
    }
  }

  const apply = async (site: GroupLimits) => {
    if (!available()) return
    await ensureBases()
    for (const dir of dirsOf(site.id)) await mkdir(dir, { recursive: true })
    await writeCpu(site.id, site.cpuPercent ?? null)
    await writeMemory(site.id, site.memoryMB ?? null)
    await writeProcesses(site.id, site.processes ?? null)
  }

  return {
    get available() {
      return available()
    },
    apply,
    async ensure(site) {
      if (available() && !dirsOf(site.id).every((dir) => existsSync(dir))) await apply(site)
    },
    has: (siteId) => !available() || dirsOf(siteId).every((dir) => existsSync(dir)),
    enter(siteId, argv) {
      if (!available()) return ['/bin/sh', '-c', 'ulimit -c 0 && exec "$@"', 'plinth-site', ...argv]
      const procs = dirsOf(siteId).map((dir) => join(dir, 'cgroup.procs'))
      // The shell writes its own pid, then becomes argv: one process, placed before anything of the site runs.
      const script =
        'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; ulimit -c 0 && exec "$@"'
      return ['/bin/sh', '-c', script, 'plinth-site', ...procs, '--', ...argv]
    },
    end,
    async remove(siteId) {
      if (!available()) return
      await end(siteId)
      for (const dir of dirsOf(siteId))
        for (let attempt = 0; ; attempt++)
          try {
            await rmdir(dir)
            break
          } catch (error) {
            if (missing(error)) break
            // A member that just exited may still be counted for a moment.
            if (attempt >= 50) throw error
            await Bun.sleep(10)
          }
      for (const dir of plan().bases)
        await rmdir(dir).catch(() => {
          // Other sites' groups are still in it (or another process of this runtime made one meanwhile).
        })
    },
    members,
    async usage(siteId) {
      if (!available()) return null
      const { v2Base, v2Enabled, v1Base } = plan()
      const v2Dir = v2Base ? siteDir(v2Base, siteId) : null
      const first = listing(siteId)
      if (!first || !existsSync(first)) return null
      const v1 = (controller: V1Controller) =>
        v1Base[controller] ? siteDir(v1Base[controller], siteId) : null
      const cpuacct = v1('cpuacct')
      const cpu = v2Dir && v2Enabled.has('cpu') ? v2Dir : v1('cpu')
      const memory = v2Dir && v2Enabled.has('memory') ? v2Dir : v1('memory')
      const pids = v2Dir && v2Enabled.has('pids') ? v2Dir : v1('pids')
      const memoryV2 = memory === v2Dir
      return {
        // v2's cpu.stat counts usage in every group, controller or not; v1's cpuacct in ns.
        cpuNanos:
          cpuacct && !(v2Dir && v2Enabled.has('cpu'))
            ? await readNumber(join(cpuacct, 'cpuacct.usage'))
            : v2Dir
              ? (await keyed(join(v2Dir, 'cpu.stat'), 'usage_usec')) * 1_000
              : 0,
        memoryBytes: memory
          ? await readNumber(join(memory, memoryV2 ? 'memory.current' : 'memory.usage_in_bytes'))
          : 0,
        tasks: pids ? await readNumber(join(pids, 'pids.current')) : (await members(siteId)).length,
        cpuHits: cpu ? await keyed(join(cpu, 'cpu.stat'), 'nr_throttled') : 0,
        // Times at the limit; a kernel that kills at once (an allocation too big to reclaim for) counts only the kill.
        memoryHits: memory
          ? memoryV2
            ? Math.max(
                await keyed(join(memory, 'memory.events'), 'max'),
                await keyed(join(memory, 'memory.events'), 'oom_kill'),
              )
            : Math.max(
                await readNumber(join(memory, 'memory.failcnt')),
                await keyed(join(memory, 'memory.oom_control'), 'oom_kill'),
              )
          : 0,
        processHits: pids ? await keyed(join(pids, 'pids.events'), 'max') : 0,
      }
    },
    enforcement() {
      const none = (how: string): LimitEnforcement => ({ enforced: false, how })
      const disk = none('disk quotas are not enforced on this node: use is measured only')
      if (!root || plan().bases.length === 0) {
        const why = none(unavailable ?? 'no cgroup hierarchy is mounted writable')
        return { cpu: why, memory: why, processes: why, disk }
      }
      const { v2Base, v2Enabled, v1Base } = plan()
      const kind = (v2: string, v1: V1Controller, v1How: string, what: string): LimitEnforcement =>
        v2Base && v2Enabled.has(v2)
          ? { enforced: true, how: `cgroup v2 ${v2}` }
          : v1Base[v1]
            ? { enforced: true, how: `cgroup v1 ${v1How}` }
            : none(`no writable ${what} controller (neither cgroup v2 ${v2} nor cgroup v1 ${v1})`)
      const memory = kind('memory', 'memory', 'memory', 'memory')
      const swapless =
        v2Base && v2Enabled.has('memory')
          ? ''
          : v1Base.memory && !existsSync(join(v1Base.memory, '..', 'memory.memsw.limit_in_bytes'))
            ? ' (swap not counted: the kernel has no memsw accounting)'
            : ''
      return {
        cpu: kind('cpu', 'cpu', 'cpu (CFS quota)', 'cpu'),
        memory: { ...memory, how: memory.how + swapless },
        processes: kind('pids', 'pids', 'pids', 'pids'),
        disk,
      }
    },
    pathOf: (siteId) => `/${base}/${siteId}`,
    directories: (siteId) => (available() ? dirsOf(siteId) : []),
  }
}
