// Retention applied to a site: its `backup.retain` job forgets the listed backups its policy no longer keeps (they
// leave the site's list) and leaves the rest, the failed, pre-restore and manual ones within their days included.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { waitFor } from '../../../hosts/testing/index.ts'
import type { Backup } from '../contract.ts'
import { startRetention } from './retention-job.ts'
import { sweepExpiredBackups } from './retention-sweep.ts'
import { type PolicyTestPanel, policyTestPanel } from './testing/policy-panel.ts'

let t: PolicyTestPanel
const day = 86_400_000

beforeAll(async () => {
  t = await policyTestPanel()
})
afterAll(() => t.close())

test('the retention job forgets exactly the backups the site’s policy does not keep', async () => {
  const site = await t.newSite(await t.newCustomer())
  const target = await t.newTarget(true)
  await t.json(
    await t.call('PUT', `/sites/${site.id}/backup-policy`, { keepDaily: 2, keepWeekly: 0, keepMonthly: 0 }),
  )
  // Midday, so that a day and an hour either side stay in the days they are meant for.
  const now = Math.floor(Date.now() / day) * day + day / 2
  t.setClock(new Date(now))
  const at = (ms: number) => new Date(now - ms).toISOString()
  const kept = [
    await t.backupRow(site, target, { created_at: at(day) }),
    await t.backupRow(site, target, { created_at: at(2 * day) }),
    await t.backupRow(site, target, {
      created_at: at(day + 3_600_000),
      status: 'failed',
      verified: 0,
      error_code: 'dump_failed',
      error_message: 'mysqldump exited 2',
    }),
    await t.backupRow(site, target, { created_at: at(5 * day), reason: 'pre-restore' }),
    // Asked for within the week: kept whatever the policy.
    await t.backupRow(site, target, { created_at: at(3 * day), reason: 'manual' }),
  ]
  const forgotten = [
    await t.backupRow(site, target, { created_at: at(2 * day + 3_600_000) }),
    await t.backupRow(site, target, { created_at: at(8 * day), reason: 'manual' }),
    await t.backupRow(site, target, {
      created_at: at(20 * day),
      status: 'failed',
      verified: 0,
      error_code: 'repository_unreachable',
      error_message: 'no route to host',
    }),
  ]

  const jobId = await t.context.transaction((trx) => startRetention(trx, t.context, site))
  const job = await waitFor('retention', async () => {
    const read = await t.json<{ status: string; result: { kept: number; forgotten: string[] } | null }>(
      await t.call('GET', `/jobs/${jobId}`),
    )
    if (read.status === 'queued' || read.status === 'running') {
      await Bun.sleep(20)
      return null
    }
    return read
  })
  expect(job.status).toBe('succeeded')
  expect(job.result?.forgotten.slice().sort()).toEqual(forgotten.map((row) => row.id).sort())
  const listed = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${site.id}/backups?limit=100`))
  expect(listed.items.map((item) => item.id).sort()).toEqual(kept.map((row) => row.id).sort())
  const audit = await t.json<{ items: { action: string }[] }>(
    await t.call('GET', `/audit?subject=${site.id}&action=backup.forget`),
  )
  expect(audit.items.length).toBeGreaterThan(0)
})

test('the daily sweep starts retention only for sites with a failed or pre-restore backup no longer kept', async () => {
  const target = await t.newTarget()
  const now = Date.now() + 40 * day
  const at = (ms: number) => new Date(now - ms).toISOString()
  const idle = await t.newSite(await t.newCustomer())
  await t.json(await t.call('PUT', `/sites/${idle.id}/backup-policy`, { schedule: 'off' }))
  const good = await t.backupRow(idle, target, { created_at: at(2 * day) })
  const stale = await t.backupRow(idle, target, {
    created_at: at(20 * day),
    status: 'failed',
    verified: 0,
    error_code: 'dump_failed',
    error_message: 'mysqldump exited 2',
  })
  // Its only completed backup, a pre-restore one past its days: still kept (the newest), so nothing to do.
  const kept = await t.newSite(await t.newCustomer())
  await t.backupRow(kept, target, { created_at: at(30 * day), reason: 'pre-restore' })

  // The clock retention's job reads.
  t.setClock(new Date(now))
  const sweep = (ms: number) =>
    t.context.transaction((trx) => sweepExpiredBackups(trx, t.context, new Date(now + ms)))
  // The first look records when the sweep is next due (a day on); then it runs once a day.
  await sweep(-day)
  expect(await sweep(-1)).toEqual([])
  const started = await sweep(0)
  expect(started).toContain(idle.id)
  expect(started).not.toContain(kept.id)
  expect(await sweep(day - 1)).toEqual([])

  const listed = await waitFor('the stale failure forgotten', async () => {
    const read = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${idle.id}/backups`))
    if (read.items.some((item) => item.id === stale.id)) {
      await Bun.sleep(20)
      return null
    }
    return read.items
  })
  expect(listed.map((item) => item.id)).toEqual([good.id])
})
