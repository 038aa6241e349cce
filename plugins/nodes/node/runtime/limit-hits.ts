// How often each site hit its limits in the last 24 hours: the kernel counts hits since a group was made (throttled
// periods, failed allocations, refused forks), so each reading adds what the counters grew by since the previous one
// to the hour it was taken in. Kept per site in `<dataDir>/resources/<site id>.json`, written whole.

import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from './atomic-files.ts'
import { serialized } from './lock.ts'

/** The kinds whose hits the kernel counts. */
export type CountedKind = 'cpu' | 'memory' | 'processes'
/** One count per kind. */
export type HitCounts = Readonly<Record<CountedKind, number>>

/** What the file keeps: the counters as last read, and what they grew by in each hour (`2026-11-29T10`). */
interface HitsFile {
  readonly last: HitCounts
  readonly hours: Readonly<Record<string, HitCounts>>
}

const kinds: readonly CountedKind[] = ['cpu', 'memory', 'processes']
const zero: HitCounts = { cpu: 0, memory: 0, processes: 0 }
/** The hour `at` falls in, in UTC: the buckets' key. */
const hourOf = (at: Date) => at.toISOString().slice(0, 13)

async function readHits(path: string): Promise<HitsFile | null> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as HitsFile
    return value && typeof value.last === 'object' && typeof value.hours === 'object' ? value : null
  } catch {
    return null
  }
}

/** The file keeping `siteId`'s hits under `dir`. */
export const hitsFile = (dir: string, siteId: string) => join(dir, `${siteId}.json`)

/**
 * Adds what `counters` grew by since the last reading to the hour of `at`, and answers the hits of the 24 hours up
 * to it. A counter lower than last read (the group was made again: a reboot) counts from zero again.
 */
export function recordHits(
  dir: string,
  siteId: string,
  counters: HitCounts,
  at = new Date(),
): Promise<HitCounts> {
  const path = hitsFile(dir, siteId)
  return serialized(path, async () => {
    const kept = await readHits(path)
    const hour = hourOf(at)
    const oldest = hourOf(new Date(at.getTime() - 23 * 3_600_000))
    const hours: Record<string, HitCounts> = {}
    for (const [key, counts] of Object.entries(kept?.hours ?? {})) if (key >= oldest) hours[key] = counts
    const grew = Object.fromEntries(
      kinds.map((kind) => {
        const last = kept?.last[kind] ?? 0
        return [kind, counters[kind] >= last ? counters[kind] - last : counters[kind]]
      }),
    ) as Record<CountedKind, number>
    // A site's first reading counts what its group counted since it was made (at provision, or the node's start).
    const current = hours[hour] ?? zero
    hours[hour] = Object.fromEntries(kinds.map((kind) => [kind, current[kind] + grew[kind]])) as HitCounts
    await mkdir(dir, { recursive: true, mode: 0o700 })
    await writeFileAtomic(
      path,
      `${JSON.stringify({ last: counters, hours })}\n`,
      AbortSignal.timeout(10_000),
      0o600,
    )
    return Object.fromEntries(
      kinds.map((kind) => [kind, Object.values(hours).reduce((sum, counts) => sum + (counts[kind] ?? 0), 0)]),
    ) as HitCounts
  })
}

/** Forgets a deleted site's hits. */
export async function forgetHits(dir: string, siteId: string): Promise<void> {
  await rm(hitsFile(dir, siteId), { force: true })
}
