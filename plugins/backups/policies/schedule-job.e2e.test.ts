// One look of the schedule starts exactly the due sites' backups: every active site whose slot is open, but a site
// with a scheduled backup since its slot, one whose schedule is `off`, one busy with another backup, and those past
// the node's allowance of backups at once; a site whose customer's `backupMB` is used up gets a failed backup. The
// backups started run for real (restic on the local node) and retention follows each: run once (node side).

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { waitFor } from '../../../hosts/testing/index.ts'
import type { Site } from '../../sites/contract.ts'
import type { Backup } from '../contract.ts'
import type { OverdueSite } from './routes/overdue-backups.ts'
import { type ScheduleLook, startScheduleLook } from './schedule-job.ts'
import { type PolicyTestPanel, policyTestPanel } from './testing/policy-panel.ts'

let t: PolicyTestPanel
const hour = 3_600_000

beforeAll(async () => {
  t = await policyTestPanel({ backupsPerNode: 3 })
})
afterAll(() => t.close())

/** Starts one look of the schedule and answers what it did, once its job finished. */
async function look(): Promise<ScheduleLook> {
  const jobId = await t.context.transaction((trx) => startScheduleLook(trx, t.context))
  const job = await waitFor('the schedule’s look', async () => {
    const read = await t.json<{ status: string; result: ScheduleLook | null; error: unknown }>(
      await t.call('GET', `/jobs/${jobId}`),
    )
    if (read.status === 'queued' || read.status === 'running') {
      await Bun.sleep(20)
      return null
    }
    return read
  })
  if (job.status !== 'succeeded')
    throw new Error(`the look ended ${job.status}: ${JSON.stringify(job.error)}`)
  return job.result as ScheduleLook
}

test('a look starts the due sites’ backups, a few at a time per node, and records a refusal for a full quota', async () => {
  const target = await t.newTarget(true)
  const site = async (plan?: {
    limits?: Record<string, number>
    backups?: Record<string, unknown>
  }): Promise<Site> => {
    const customerId = await t.newCustomer()
    if (plan) await t.subscribe(customerId, plan.limits ?? {}, plan.backups ? { backups: plan.backups } : {})
    return t.newSite(customerId)
  }
  // In id order, which is the order the look walks them in.
  const full = await site({ limits: { backupMB: 0 } })
  const busy = await site()
  const due = [await site(), await site(), await site()]
  const backedUp = await site()
  const off = await site({ backups: { schedule: 'off' } })
  const weeklyNotYet = await site({ backups: { schedule: 'weekly' } })

  // Two days on: every daily site's last slot (a night in between) came after its creation.
  const now = Date.now() + 2 * 24 * hour
  t.setClock(new Date(now))
  // A manual backup of `busy` runs (it counts against the node's allowance); `backedUp` has its night's backup.
  await t.backupRow(busy, target, {
    status: 'running',
    reason: 'manual',
    job_id: 'job_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
  })
  await t.backupRow(backedUp, target, { created_at: new Date(now - 60_000).toISOString() })
  // The weekly site's slot: whether it fell in these two days decides whether it is due (its id picks it).
  const weekly = await t.json<{ nextDueAt: string }>(
    await t.call('GET', `/sites/${weeklyNotYet.id}/backup-policy`),
  )
  const weeklyDue = Date.parse(weekly.nextDueAt) <= now

  const result = await look()
  const mine = new Set([full, busy, ...due, backedUp, off, weeklyNotYet].map((item) => item.id))
  const only = (ids: readonly string[]) => ids.filter((id) => mine.has(id))
  // The node runs `busy`'s backup: two more start, the third due site waits for a later look.
  const [first, second, third] = due.map((item) => item.id) as [string, string, string]
  expect(only(result.refused)).toEqual([full.id])
  if (weeklyDue) {
    expect(only(result.started)).toEqual([first, second])
    expect(only(result.waiting)).toEqual([third, weeklyNotYet.id])
  } else {
    expect(only(result.started)).toEqual([first, second])
    expect(only(result.waiting)).toEqual([third])
  }

  // What the customers see: a scheduled backup for each started site, and the refusal as a failed backup.
  for (const id of [first, second]) {
    const listed = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${id}/backups`))
    expect(listed.items.map((item) => item.reason)).toEqual(['scheduled'])
  }
  const refused = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${full.id}/backups`))
  expect(refused.items).toEqual([
    expect.objectContaining({
      status: 'failed',
      reason: 'scheduled',
      error: expect.objectContaining({ code: 'backup_limit_reached' }),
    }),
  ])
  for (const id of [third, off.id, backedUp.id, busy.id]) {
    const listed = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${id}/backups`))
    const scheduled = listed.items.filter((item) => item.reason === 'scheduled')
    expect(scheduled).toHaveLength(id === backedUp.id ? 1 : 0)
  }
  // The started backups end.
  for (const id of [first, second])
    await waitFor(
      'the scheduled backup to end',
      async () => {
        const listed = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${id}/backups`))
        if (listed.items.some((item) => item.status === 'running')) {
          await Bun.sleep(50)
          return null
        }
        return listed.items
      },
      60_000,
    )
  // Taken and checked on the local node by restic, as any backup.
  for (const id of [first, second]) {
    const listed = await t.json<{ items: Backup[] }>(await t.call('GET', `/sites/${id}/backups`))
    expect(listed.items.map((item) => [item.reason, item.status, item.verified])).toEqual([
      ['scheduled', 'completed', true],
    ])
  }
  // Each backup that ended started retention of its site (`backup.retain`), which ran.
  for (const id of [first, second, full.id])
    await waitFor('retention after the backup', async () => {
      const jobs = await t.json<{ items: { status: string }[] }>(
        await t.call('GET', `/jobs?kind=backup.retain&subjectId=${id}`),
      )
      if (!jobs.items.some((job) => job.status === 'succeeded')) {
        await Bun.sleep(20)
        return null
      }
      return true
    })
  // Staff see the refused site overdue, saying why.
  const overdue = await t.json<{ items: OverdueSite[] }>(await t.call('GET', '/backups/overdue?limit=100'))
  expect(overdue.items.find((item) => item.siteId === full.id)?.lastFailure?.code).toBe(
    'backup_limit_reached',
  )
})
