// A site's backup policy through the API: each member from staff's own for the site, else its plans' `backups`
// (several combined: the most frequent schedule, the largest keeps), else the default; only platform staff set a
// site's own, audited; the overdue list shows active sites whose last good backup is older than their schedule.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestUser, expectFieldProblem, expectProblem } from '../../../hosts/testing/index.ts'
import type { BackupTables } from '../migrations.ts'
import type { OverdueSite } from './routes/overdue-backups.ts'
import type { SiteBackupPolicy } from './site-policy-answer.ts'
import { type PolicyTestPanel, policyTestPanel } from './testing/policy-panel.ts'

let t: PolicyTestPanel
const hour = 3_600_000

beforeAll(async () => {
  t = await policyTestPanel()
})
afterAll(() => t.close())

const policyOf = async (siteId: string, token?: string) =>
  t.json<SiteBackupPolicy>(await t.call('GET', `/sites/${siteId}/backup-policy`, undefined, token))

/** A token of a new member (`role`) of `customerId`. */
async function memberToken(customerId: string, role = 'owner'): Promise<string> {
  const member = await createTestUser(t.tp.panel.store.db, {
    email: `m-${crypto.randomUUID().slice(0, 8)}@c.example`,
    staffRole: null,
  })
  await t.json(await t.call('POST', `/customers/${customerId}/members`, { email: member.email, role }), 201)
  return t.tp.token({ user: member })
}

describe('a site’s backup policy', () => {
  test('without plan or own policy is the default: daily, keep 7 daily, 4 weekly, 3 monthly', async () => {
    t.setClock(new Date())
    const site = await t.newSite(await t.newCustomer())
    const policy = await policyOf(site.id)
    expect(policy).toMatchObject({
      siteId: site.id,
      schedule: { value: 'daily', source: 'default' },
      keepDaily: { value: 7, source: 'default' },
      keepWeekly: { value: 4, source: 'default' },
      keepMonthly: { value: 3, source: 'default' },
      own: null,
      lastGoodBackupAt: null,
      overdue: false,
    })
    // Its first slot: the first night after its creation, between 01:00 and 05:00 UTC.
    const next = new Date(policy.nextDueAt ?? '')
    expect(next.getTime()).toBeGreaterThan(Date.parse(site.createdAt))
    expect(next.getTime() - Date.parse(site.createdAt)).toBeLessThanOrEqual(24 * hour)
    expect(next.getUTCHours()).toBeGreaterThanOrEqual(1)
    expect(next.getUTCHours()).toBeLessThan(5)
  })

  test('a site older than the installation’s backups counts from them: not overdue, its first slot after them (an upgrade starts no afternoon wave)', async () => {
    t.setClock(new Date())
    const site = await t.newSite(await t.newCustomer())
    const tenDaysAgo = new Date(Date.now() - 10 * 24 * hour).toISOString()
    await t.tp.panel.store.db
      .withTables<{ sites: { id: string; created_at: string } }>()
      .updateTable('sites')
      .set({ created_at: tenDaysAgo })
      .where('id', '=', site.id)
      .execute()
    const since = await t.tp.panel.store.db
      .withTables<BackupTables>()
      .selectFrom('backup_targets')
      .select('created_at')
      .orderBy('created_at')
      .executeTakeFirstOrThrow()
    const policy = await policyOf(site.id)
    expect(policy.overdue).toBe(false)
    expect(Date.parse(policy.nextDueAt ?? '')).toBeGreaterThanOrEqual(Date.parse(since.created_at))
  })

  test('takes its plans’ `backups`: the most frequent schedule and the largest keeps of those that set them', async () => {
    const customerId = await t.newCustomer()
    await t.subscribe(customerId, {}, { backups: { schedule: 'weekly', keepDaily: 3, keepMonthly: 1 } })
    await t.subscribe(customerId, {}, { backups: { schedule: 'daily', keepDaily: 2, keepWeekly: 9 } })
    const site = await t.newSite(customerId)
    expect(await policyOf(site.id)).toMatchObject({
      schedule: { value: 'daily', source: 'plan' },
      keepDaily: { value: 3, source: 'plan' },
      keepWeekly: { value: 9, source: 'plan' },
      keepMonthly: { value: 1, source: 'plan' },
    })
  })

  test('a plan’s `backups` is checked like any plan field', async () => {
    const response = await t.call('POST', '/plans', {
      name: `Bad ${crypto.randomUUID().slice(0, 6)}`,
      limits: {},
      backups: { schedule: 'hourly' },
    })
    expect(response.status).toBe(422)
  })

  test('staff set the site’s own over its plan’s, member by member, and a target; removing it gives the plan’s back', async () => {
    const customerId = await t.newCustomer()
    await t.subscribe(customerId, {}, { backups: { schedule: 'weekly', keepDaily: 3 } })
    const site = await t.newSite(customerId)
    const defaultTarget = await t.newTarget(true)
    const ownTarget = await t.newTarget()
    expect((await policyOf(site.id)).target).toMatchObject({
      id: defaultTarget,
      source: 'default',
      kind: 'local',
    })

    const set = await t.json<SiteBackupPolicy>(
      await t.call('PUT', `/sites/${site.id}/backup-policy`, {
        schedule: 'off',
        keepMonthly: 12,
        targetId: ownTarget,
      }),
    )
    expect(set).toMatchObject({
      schedule: { value: 'off', source: 'site' },
      keepDaily: { value: 3, source: 'plan' },
      keepWeekly: { value: 4, source: 'default' },
      keepMonthly: { value: 12, source: 'site' },
      own: { schedule: 'off', keepDaily: null, keepWeekly: null, keepMonthly: 12, targetId: ownTarget },
      target: { id: ownTarget, source: 'site' },
      nextDueAt: null,
      overdue: false,
    })
    expect(await policyOf(site.id)).toEqual(set)

    // The same again changes nothing and writes no second entry.
    await t.json(
      await t.call('PUT', `/sites/${site.id}/backup-policy`, {
        schedule: 'off',
        keepMonthly: 12,
        targetId: ownTarget,
      }),
    )
    const removed = await t.json<SiteBackupPolicy>(await t.call('DELETE', `/sites/${site.id}/backup-policy`))
    expect(removed).toMatchObject({
      schedule: { value: 'weekly', source: 'plan' },
      keepMonthly: { value: 3, source: 'default' },
      own: null,
      target: { id: defaultTarget, source: 'default' },
    })
    const audit = await t.json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await t.call('GET', `/audit?subject=${site.id}`),
    )
    const entries = audit.items.filter((entry) => entry.action.startsWith('backup_policy.'))
    expect(entries.map((entry) => entry.action).sort()).toEqual([
      'backup_policy.remove',
      'backup_policy.update',
    ])
    expect(entries.find((entry) => entry.action === 'backup_policy.update')?.details).toMatchObject({
      schedule: 'off',
      keepMonthly: 12,
      targetId: ownTarget,
      before: null,
    })
  })

  test('a target there is none of is 422 `unknown_backup_target` at body.targetId; out-of-range keeps are 422', async () => {
    const site = await t.newSite(await t.newCustomer())
    await expectFieldProblem(
      await t.call('PUT', `/sites/${site.id}/backup-policy`, { targetId: 'bkt_nothere' }),
      422,
      'unknown_backup_target',
      'body.targetId',
    )
    expect((await t.call('PUT', `/sites/${site.id}/backup-policy`, { keepDaily: 367 })).status).toBe(422)
    expect((await t.call('PUT', `/sites/${site.id}/backup-policy`, { schedule: 'hourly' })).status).toBe(422)
    expect((await policyOf(site.id)).own).toBeNull()
  })

  test('customers read their site’s policy but may not set it (403); other customers’ sites are 404', async () => {
    const customerId = await t.newCustomer()
    const site = await t.newSite(customerId)
    const owner = await memberToken(customerId)
    expect((await policyOf(site.id, owner)).siteId).toBe(site.id)
    await expectProblem(
      await t.call('PUT', `/sites/${site.id}/backup-policy`, { schedule: 'off' }, owner),
      403,
      'staff_only',
    )
    await expectProblem(
      await t.call('DELETE', `/sites/${site.id}/backup-policy`, undefined, owner),
      403,
      'staff_only',
    )
    // Staff's own token limited to the customer is refused as for every staff area.
    const limited = await t.tp.token({ customerId })
    await expectProblem(
      await t.call('PUT', `/sites/${site.id}/backup-policy`, { schedule: 'off' }, limited),
      403,
      'staff_only',
    )

    const other = await t.newSite(await t.newCustomer())
    await expectProblem(
      await t.call('GET', `/sites/${other.id}/backup-policy`, undefined, owner),
      404,
      'not_found',
    )
    await expectProblem(
      await t.call('PUT', '/sites/site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1/backup-policy', {}),
      404,
      'not_found',
    )
    expect((await policyOf(site.id)).own).toBeNull()
  })
})

describe('the overdue list', () => {
  /** Every overdue site, page after page of `limit`. */
  async function allOverdue(limit: number): Promise<OverdueSite[]> {
    const items: OverdueSite[] = []
    let cursor: string | null = null
    do {
      const query: string = cursor
        ? `?limit=${limit}&cursor=${encodeURIComponent(cursor)}`
        : `?limit=${limit}`
      const page: { items: OverdueSite[]; nextCursor: string | null } = await t.json(
        await t.call('GET', `/backups/overdue${query}`),
      )
      items.push(...page.items)
      cursor = page.nextCursor
    } while (cursor)
    return items
  }

  test('lists active sites whose last good backup is older than their schedule and the grace, with their last failure', async () => {
    const target = await t.newTarget()
    const now = Date.now() + 10 * 24 * hour
    t.setClock(new Date(now))
    const ago = (hours: number) => new Date(now - hours * hour).toISOString()
    const make = async (backups: Record<string, unknown> | null) => {
      const customerId = await t.newCustomer()
      if (backups) await t.subscribe(customerId, {}, { backups })
      return t.newSite(customerId)
    }
    const freshDaily = await make(null)
    await t.backupRow(freshDaily, target, { created_at: ago(29) })
    const staleDaily = await make(null)
    await t.backupRow(staleDaily, target, { created_at: ago(31) })
    const failure = await t.backupRow(staleDaily, target, {
      created_at: ago(2),
      status: 'failed',
      verified: 0,
      error_code: 'repository_unreachable',
      error_message: 'The SFTP server did not answer.',
    })
    // A good backup in time but forgotten since counts for nothing; a failed one never counts as good.
    const neverGood = await make(null)
    await t.backupRow(neverGood, target, { created_at: ago(1), forgotten_at: ago(0) })
    const weeklyFine = await make({ schedule: 'weekly' })
    await t.backupRow(weeklyFine, target, { created_at: ago(6 * 24) })
    const weeklyStale = await make({ schedule: 'weekly' })
    await t.backupRow(weeklyStale, target, { created_at: ago(7 * 24 + 7) })
    const off = await make({ schedule: 'off' })

    const mine = new Set(
      [freshDaily, staleDaily, neverGood, weeklyFine, weeklyStale, off].map((site) => site.id),
    )
    const listed = (await allOverdue(2)).filter((item) => mine.has(item.siteId))
    expect(listed).toEqual([
      {
        siteId: staleDaily.id,
        customerId: staleDaily.customerId,
        domain: staleDaily.domain,
        nodeId: staleDaily.nodeId,
        schedule: 'daily',
        lastGoodBackupAt: ago(31),
        lastFailure: {
          code: 'repository_unreachable',
          message: 'The SFTP server did not answer.',
          at: failure.finished_at ?? '',
        },
      },
      expect.objectContaining({ siteId: neverGood.id, lastGoodBackupAt: null, lastFailure: null }),
      expect.objectContaining({
        siteId: weeklyStale.id,
        schedule: 'weekly',
        lastGoodBackupAt: ago(7 * 24 + 7),
      }),
    ])
    // Pages of one give the same as one page.
    expect((await allOverdue(1)).filter((item) => mine.has(item.siteId))).toEqual(listed)
    expect(await policyOf(staleDaily.id)).toMatchObject({ overdue: true, lastGoodBackupAt: ago(31) })
    expect(await policyOf(freshDaily.id)).toMatchObject({ overdue: false, lastGoodBackupAt: ago(29) })
  })

  test('is staff’s: a customer’s owner is refused (403)', async () => {
    const customerId = await t.newCustomer()
    await expectProblem(
      await t.call('GET', '/backups/overdue', undefined, await memberToken(customerId)),
      403,
      'staff_only',
    )
  })
})
