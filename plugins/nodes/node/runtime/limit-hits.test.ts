// Limit hits by the hour: what the kernel's cumulative counters grew by between readings, kept for 24 hours, counted
// again from zero when a group was made anew (its counters start over).

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { forgetHits, hitsFile, recordHits } from './limit-hits.ts'

const dir = join(mkdtempSync(join(tmpdir(), 'plinth-hits-')), 'resources')
afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }))
const at = (iso: string) => new Date(iso)

describe('limit hits by the hour', () => {
  test('a first reading counts what the group counted so far; later ones what the counters grew by', async () => {
    expect(
      await recordHits(dir, 'a', { cpu: 5, memory: 0, processes: 2 }, at('2026-11-29T10:05:00Z')),
    ).toEqual({
      cpu: 5,
      memory: 0,
      processes: 2,
    })
    expect(
      await recordHits(dir, 'a', { cpu: 12, memory: 1, processes: 2 }, at('2026-11-29T10:35:00Z')),
    ).toEqual({
      cpu: 12,
      memory: 1,
      processes: 2,
    })
    expect(
      await recordHits(dir, 'a', { cpu: 20, memory: 1, processes: 2 }, at('2026-11-29T15:00:00Z')),
    ).toEqual({
      cpu: 20,
      memory: 1,
      processes: 2,
    })
    const kept = JSON.parse(readFileSync(hitsFile(dir, 'a'), 'utf8'))
    expect(kept.hours['2026-11-29T10']).toEqual({ cpu: 12, memory: 1, processes: 2 })
    expect(kept.hours['2026-11-29T15']).toEqual({ cpu: 8, memory: 0, processes: 0 })
  })

  test('hours older than 24 are dropped from the count and the file', async () => {
    // 10:00 on the next day: the 10 o'clock bucket of the day before is 24 hours old.
    expect(
      await recordHits(dir, 'a', { cpu: 21, memory: 1, processes: 2 }, at('2026-11-30T10:00:00Z')),
    ).toEqual({
      cpu: 9,
      memory: 0,
      processes: 0,
    })
    const kept = JSON.parse(readFileSync(hitsFile(dir, 'a'), 'utf8'))
    expect(Object.keys(kept.hours).sort()).toEqual(['2026-11-29T15', '2026-11-30T10'])
  })

  test('a counter lower than last read (the group made again after a reboot) counts from zero again', async () => {
    expect(
      await recordHits(dir, 'a', { cpu: 3, memory: 0, processes: 0 }, at('2026-11-30T11:00:00Z')),
    ).toEqual({
      cpu: 12,
      memory: 0,
      processes: 0,
    })
  })

  test('concurrent readings of one site are counted once each', async () => {
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        recordHits(dir, 'b', { cpu: n, memory: 0, processes: 0 }, at('2026-11-30T11:00:00Z')),
      ),
    )
    const kept = JSON.parse(readFileSync(hitsFile(dir, 'b'), 'utf8'))
    expect(kept.hours['2026-11-30T11'].cpu).toBe(4)
    await forgetHits(dir, 'b')
    expect(() => readFileSync(hitsFile(dir, 'b'))).toThrow()
  })
})
