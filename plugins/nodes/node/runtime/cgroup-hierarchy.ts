// Which cgroup hierarchies a node has, read from its mounts: a pure v2 tree (Debian 12), v1 controllers mounted one
// by one (older hosts, containers), or both (v1 controllers beside a v2 tree without controllers, this project's CI
// machine). Sites' groups are made where each controller is, so the same code serves every layout.

import { accessSync, constants, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The v1 controllers sites' groups use: limits (cpu, memory, pids), accounting (cpuacct) and ending (freezer). */
export const v1Controllers = ['cpu', 'cpuacct', 'memory', 'pids', 'freezer'] as const
export type V1Controller = (typeof v1Controllers)[number]

/** The v2 controllers a site's group asks its parent for. */
export const v2Controllers = ['cpu', 'memory', 'pids'] as const
export type V2Controller = (typeof v2Controllers)[number]

/** What the node's mounts offer. */
export interface CgroupHierarchy {
  /** The v2 tree's mount point, or null. */
  readonly v2: string | null
  /** The controllers the v2 tree's root offers (`cgroup.controllers`). */
  readonly v2Available: readonly string[]
  /** Each v1 controller's mount point (a combined `cpu,cpuacct` mount names the same path twice), writable ones only. */
  readonly v1: Readonly<Partial<Record<V1Controller, string>>>
}

const writable = (path: string) => {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** The hierarchies in `mounts` (the text of `/proc/self/mounts`). */
export function parseCgroupMounts(mounts: string): CgroupHierarchy {
  let v2: string | null = null
  const v1: Partial<Record<V1Controller, string>> = {}
  for (const line of mounts.split('\n')) {
    const [, path, type, options] = line.split(' ')
    if (!path || !options) continue
    // Mount points with spaces are escaped as \040; a cgroup mount never has one where it matters.
    if (type === 'cgroup2') v2 ??= path
    else if (type === 'cgroup')
      for (const option of options.split(','))
        if ((v1Controllers as readonly string[]).includes(option)) v1[option as V1Controller] ??= path
  }
  return { v2, v2Available: [], v1 }
}

/** The node's hierarchies now: writable ones only, since a group it cannot make enforces nothing. */
export function readCgroupHierarchy(): CgroupHierarchy {
  let mounts = ''
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8')
  } catch {
    // No /proc: no cgroups either.
  }
  const parsed = parseCgroupMounts(mounts)
  const v2 = parsed.v2 !== null && writable(parsed.v2) ? parsed.v2 : null
  let v2Available: string[] = []
  if (v2)
    try {
      v2Available = readFileSync(join(v2, 'cgroup.controllers'), 'utf8').trim().split(/\s+/).filter(Boolean)
    } catch {
      // Not a tree we can read: no controllers from it.
    }
  const v1 = Object.fromEntries(Object.entries(parsed.v1).filter(([, path]) => writable(path)))
  return { v2, v2Available, v1 }
}
