// Fixtures of tests of what runs on nodes (the testing kit offers them): a data directory and a free port for a
// node, a node running given modules, site specs and where a node keeps a site, requests sent to its nginx with a
// Host header, and the processes its masters run.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { NodeModule, SiteSpec } from '../contract.ts'
import { createNode, type NodeModuleEntry, type NodeOptions, type PlinthNode } from '../node.ts'

export type { PlinthNode }

import { readCgroupHierarchy } from '../runtime/cgroup-hierarchy.ts'
import { runtimeLayout, type SiteLayout, siteLayout } from '../runtime/layout.ts'
import { childrenOf, processInfo } from '../runtime/masters.ts'
import { baseGroupName, siteGroups } from '../runtime/site-groups.ts'

export { readSiteState } from '../runtime/site-state.ts'

/** A fresh data directory (0700, as mkdtemp makes it: the runtime opens its own up to 0711). */
export function servingDataDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/**
 * A node running `modules` (a plugin's node module: its services and applications; with its options where given as
 * `{ module, options }`), as the local node and agents run them; `options.env` defaults to none.
 */
export async function nodeWith(
  modules: readonly (NodeModule<never> | NodeModuleEntry)[],
  options: Omit<NodeOptions, 'env'> & { readonly env?: NodeOptions['env'] },
): Promise<PlinthNode> {
  const node = createNode({ env: {}, ...options })
  await node.use(modules.map((module) => ('module' in module ? module : { module })))
  return node
}

/** Where a node over `dataDir` keeps `site`: its home, document root, state file, server block, Unix user. */
export function sitePaths(dataDir: string, site: SiteSpec): SiteLayout {
  return siteLayout(runtimeLayout(dataDir), site)
}

/** A site spec: a static site by default. */
export const siteSpec = (overrides: Partial<SiteSpec> = {}): SiteSpec => ({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
  handle: 'my-shop',
  domain: 'shop.example.com',
  type: 'static',
  customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA',
  diskMB: 500,
  ...overrides,
})

export const never = () => new AbortController().signal

/** A request to the runtime's nginx on `port` for `host` (redirects are answers, not followed). */
export function request(port: number, host: string, path = '/', init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  headers.set('host', host)
  return fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers, redirect: 'manual' })
}

/** The pid in one of the masters' pid files, or null. */
export function pidIn(path: string): number | null {
  try {
    return Number(readFileSync(path, 'utf8').trim()) || null
  } catch {
    return null
  }
}

/** Live processes whose command line names `dataDir` (the masters), with their children (the workers). */
export function processesOf(dataDir: string): number[] {
  const masters: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    if (processInfo(Number(name))?.cmdline.includes(dataDir)) masters.push(Number(name))
  }
  return [...masters, ...masters.flatMap((pid) => childrenOf(pid))]
}

/** Runs a command and answers its exit code and stdout. */
export function sh(argv: string[]): { code: number; stdout: string } {
  const result = Bun.spawnSync(argv)
  return { code: result.exitCode, stdout: result.stdout.toString() }
}

/** Live processes running as `uid` (a site's pool workers). */
export function processesOfUid(uid: number): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const real = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1]
      if (Number(real) === uid && processInfo(Number(name))) pids.push(Number(name))
    } catch {
      // Gone while we looked.
    }
  }
  return pids
}

/** Polls `check` until it is true, or fails naming `what` after `ms`. */
export async function eventually(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await Bun.sleep(25)
  }
}

/**
 * Removes the sites' groups a node over `dataDir` left in the kernel (a test that deleted none of its sites), their
 * processes killed first: groups outlive the process that made them, and nothing else removes them.
 */
export function removeSiteGroups(dataDir: string): void {
  const hierarchy = readCgroupHierarchy()
  const base = baseGroupName(runtimeLayout(dataDir).dataDir)
  const mounts = [hierarchy.v2, ...Object.values(hierarchy.v1)].filter((mount): mount is string =>
    Boolean(mount),
  )
  for (const mount of mounts) {
    const dir = join(mount, base)
    if (!existsSync(dir)) continue
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const group = join(dir, entry.name)
      for (let attempt = 0; attempt < 100; attempt++) {
        const pids = readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)
        for (const pid of pids)
          try {
            process.kill(Number(pid), 'SIGKILL')
          } catch {
            // Gone meanwhile.
          }
        try {
          rmdirSync(group)
          break
        } catch {
          Bun.sleepSync(10)
        }
      }
    }
    try {
      rmdirSync(dir)
    } catch {
      // Still in use: said by the next test that looks.
    }
  }
}

/** The path of a site's group as `/proc/<pid>/cgroup` shows it, on a node over `dataDir` (`/plinth-<hash>/<site id>`). */
export function siteGroupPath(dataDir: string, siteId: string): string {
  return `/${baseGroupName(runtimeLayout(dataDir).dataDir)}/${siteId}`
}

/** The pids of `uid`'s processes whose command line is `cmdline` (its arguments joined by spaces). */
export function processesRunning(uid: number, cmdline: string): number[] {
  return processesOfUid(uid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') === cmdline
    } catch {
      return false
    }
  })
}

/** What `/proc/<pid>/cgroup` says, or '' once the process is gone. */
export function cgroupOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8')
  } catch {
    return ''
  }
}

/** The CPU time the processes of a site's group took so far, in ns, as the kernel counts it (0 with no group). */
export async function siteGroupCpuNanos(dataDir: string, siteId: string): Promise<number> {
  return (await siteGroups(runtimeLayout(dataDir).dataDir, null).usage(siteId))?.cpuNanos ?? 0
}
