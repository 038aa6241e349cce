// What each site uses of CPU, memory, processes and disk against its limits, as the kernel counts it in the site's
// group, and how often it hit each limit in the last 24 hours (`limit-hits.ts`): the `resources` operation's answer.

import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type LimitEnforcement,
  NodeFailure,
  type ResourceKind,
  type ResourceUse,
  type SiteResources,
} from '../contract.ts'
import { type HitCounts, recordHits } from './limit-hits.ts'
import type { RuntimeCore } from './runtime-core.ts'
import { siteDiskUse } from './site-disks.ts'
import type { GroupUsage } from './site-groups.ts'
import { isSafeSiteId } from './site-spec.ts'
import { readSiteState, type SiteState } from './site-state.ts'

/** How long the first reading of a site waits between its two CPU samples (later ones use the previous reading). */
const firstIntervalMs = 250
const mb = 1024 * 1024

/** A CPU reading kept for the next one: percent is the CPU time between two readings over the time between them. */
interface CpuReading {
  readonly atMs: number
  readonly cpuNanos: number
}

/** Reads sites' resources for `core`'s runtime, keeping each site's last CPU reading between calls. */
export function siteResources(core: RuntimeCore) {
  const previous = new Map<string, CpuReading>()
  const { layout, groups } = core

  /** The site's state, or null when the node does not keep it. */
  const stateOf = async (siteId: string): Promise<SiteState | null> => {
    if (!isSafeSiteId(siteId)) return null
    const state = await readSiteState(join(layout.sites, siteId, 'state.json')).catch(() => null)
    return state?.siteId === siteId ? state : null
  }

  /** The CPU percent since the site's previous reading (a short interval now for its first). */
  const cpuPercent = async (siteId: string, usage: GroupUsage): Promise<number> => {
    let before = previous.get(siteId)
    let now: CpuReading = { atMs: performance.now(), cpuNanos: usage.cpuNanos }
    if (!before || now.cpuNanos < before.cpuNanos) {
      before = now
      await Bun.sleep(firstIntervalMs)
      now = { atMs: performance.now(), cpuNanos: (await groups.usage(siteId))?.cpuNanos ?? now.cpuNanos }
    }
    previous.set(siteId, now)
    const elapsedNanos = (now.atMs - before.atMs) * 1e6
    return elapsedNanos > 0 ? Math.round(((now.cpuNanos - before.cpuNanos) / elapsedNanos) * 1000) / 10 : 0
  }

  const readOne = async (
    state: SiteState,
    enforcement: Record<ResourceKind, LimitEnforcement>,
  ): Promise<SiteResources> => {
    const siteId = state.siteId
    const usage = await groups.usage(siteId)
    const hits: HitCounts = usage
      ? await recordHits(layout.resources, siteId, {
          cpu: usage.cpuHits,
          memory: usage.memoryHits,
          processes: usage.processHits,
        })
      : { cpu: 0, memory: 0, processes: 0 }
    const use = (kind: ResourceKind, used: number, limit: number | null, hits24h: number): ResourceUse => ({
      used,
      limit,
      hits24h,
      enforced: enforcement[kind].enforced,
    })
    // The filesystem's own count for a site on its image (its quota enforced), `du` for a plain home (not).
    const disk = await siteDiskUse(
      join(layout.sites, siteId),
      join(layout.disks, `${siteId}.ext4`),
      AbortSignal.timeout(300_000),
    ).catch(() => ({ bytes: 0, enforced: false }))
    return {
      siteId,
      at: new Date().toISOString(),
      cpu: use('cpu', usage ? await cpuPercent(siteId, usage) : 0, state.cpuPercent ?? null, hits.cpu),
      memory: use(
        'memory',
        usage?.memoryBytes ?? 0,
        state.memoryMB == null ? null : state.memoryMB * mb,
        hits.memory,
      ),
      processes: use('processes', usage?.tasks ?? 0, state.processes ?? null, hits.processes),
      // ext4 counts no refused writes: a full filesystem is seen, its ENOSPC are not.
      disk: {
        used: disk.bytes,
        limit: state.diskMB === null ? null : state.diskMB * mb,
        hits24h: 0,
        enforced: disk.enforced,
      },
    }
  }

  /** The states of the sites named (default every site the node keeps); a site it does not keep is left out. */
  const statesOf = async (siteIds: readonly string[] | undefined) => {
    const ids =
      siteIds ??
      (await readdir(layout.sites).catch(() => [] as string[])).filter((name) => !name.startsWith('.'))
    return (await Promise.all([...new Set(ids)].map(stateOf))).filter(
      (state): state is SiteState => state !== null,
    )
  }

  return {
    /** The resources of the sites named (default every site the node keeps), read at once. */
    async read(siteIds?: readonly string[]): Promise<readonly SiteResources[]> {
      if (siteIds !== undefined && !(Array.isArray(siteIds) && siteIds.every((id) => typeof id === 'string')))
        throw new NodeFailure(
          'The sites whose resources are asked for are not a list of ids',
          'invalid_site_ids',
        )
      const states = await statesOf(siteIds)
      const enforcement = groups.enforcement()
      return Promise.all(states.map((state) => readOne(state, enforcement)))
    },
    /** Adds every site's hits since the last reading to the hour's bucket (so hours no one asked in are counted). */
    async sample(): Promise<void> {
      for (const state of await statesOf(undefined)) {
        const usage = await groups.usage(state.siteId)
        if (usage)
          await recordHits(layout.resources, state.siteId, {
            cpu: usage.cpuHits,
            memory: usage.memoryHits,
            processes: usage.processHits,
          })
      }
    },
    /** Forgets a deleted site's last CPU reading. */
    forget(siteId: string) {
      previous.delete(siteId)
    },
  }
}
