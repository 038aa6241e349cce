// Retention against restic itself (Debian's 0.14): snapshots taken at chosen times around day, ISO week, month and
// year boundaries, then `restic forget --dry-run` with a policy; `retainedBackups` keeps exactly the snapshots
// restic keeps. restic runs with TZ=UTC, the zone the panel's buckets are in. Runs once (node side: it runs restic).

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RetentionCandidate, retainedBackups } from './retention.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-retention-restic-'))
const environment = {
  ...process.env,
  TZ: 'UTC',
  RESTIC_REPOSITORY: join(folder, 'repository'),
  RESTIC_PASSWORD: 'retention test',
  RESTIC_CACHE_DIR: join(folder, 'cache'),
}

/** Runs restic; answers its standard output, failing the test on a non-zero exit. */
async function restic(...args: string[]): Promise<string> {
  const run = Bun.spawn(['/usr/bin/restic', ...args], { env: environment, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  if (code !== 0) throw new Error(`restic ${args.join(' ')} exited ${code}: ${err}`)
  return out
}

/** Snapshot times (UTC): several a day, gaps, the ends of months, and the weeks around a new year. */
const times = [
  '2026-10-30 02:00:00',
  '2026-10-31 23:59:59',
  '2026-11-01 00:00:00',
  '2026-11-15 02:00:00',
  '2026-11-30 02:00:00',
  '2026-12-01 02:00:00',
  '2026-12-06 23:00:00', // a Sunday
  '2026-12-07 00:30:00', // the Monday after
  '2026-12-20 02:00:00',
  '2026-12-27 02:00:00',
  '2026-12-28 02:00:00', // Monday of 2026-W53
  '2026-12-31 02:00:00',
  '2027-01-01 02:00:00', // still 2026-W53
  '2027-01-01 15:00:00',
  '2027-01-03 23:59:00', // Sunday, the week's end
  '2027-01-04 00:01:00', // 2027-W01
  '2027-01-05 02:00:00',
  '2027-01-05 02:30:00',
  '2027-01-07 02:00:00',
  '2027-01-08 02:00:00',
  '2027-01-09 02:00:00',
]

beforeAll(async () => {
  const data = join(folder, 'data')
  await Bun.write(join(data, 'file'), 'x')
  await restic('init')
  for (const [index, time] of times.entries()) {
    // A change each time, as a site's would be (restic takes a snapshot of unchanged data too).
    writeFileSync(join(data, 'file'), String(index))
    await restic('backup', '--quiet', '--time', time, '--host', 'retention', data)
  }
}, 120_000)
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** The snapshot times restic keeps under the policy. */
async function resticKeeps(daily: number, weekly: number, monthly: number): Promise<string[]> {
  const out = await restic(
    'forget',
    '--dry-run',
    '--json',
    '--keep-daily',
    String(daily),
    '--keep-weekly',
    String(weekly),
    '--keep-monthly',
    String(monthly),
  )
  const groups = JSON.parse(out) as { keep: { time: string }[] }[]
  return groups.flatMap((group) => group.keep.map((snapshot) => new Date(snapshot.time).toISOString())).sort()
}

const candidates: RetentionCandidate[] = times.map((time, index) => {
  const at = new Date(`${time.replace(' ', 'T')}Z`).toISOString()
  return {
    id: `bkp_${String(index).padStart(4, '0')}`,
    status: 'completed',
    reason: 'scheduled',
    createdAt: at,
    finishedAt: at,
  }
})

test.each([
  [7, 4, 3],
  [5, 3, 4],
  [2, 0, 0],
  [0, 2, 0],
  [0, 0, 2],
  [1, 0, 6],
  [3, 5, 0],
  [30, 30, 30],
])(
  'keep-daily %i, keep-weekly %i, keep-monthly %i keeps what restic keeps',
  async (daily, weekly, monthly) => {
    const kept = retainedBackups(
      candidates,
      { keepDaily: daily, keepWeekly: weekly, keepMonthly: monthly },
      new Date('2027-02-01T00:00:00Z'),
    )
    expect(kept.map((backup) => backup.createdAt).sort()).toEqual(await resticKeeps(daily, weekly, monthly))
  },
)
