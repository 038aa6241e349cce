// A restore into a site (the backups plugin's `backup.restored`: a backup restored, a staging push, an undo) purges
// the site's whole page cache when its cache is on, through a `cache.purge` job that asks the site's node (the test
// panel's local node answers in process), audited and emitted as a purge is; a site with its cache off is left alone.
// The event is written here as the backups plugin writes it: its restores need a node that takes backups
// (backups.e2e.test.ts's).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../core/index.ts'
import { createTestPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'

let tp: TestPanel
let token: string
let customerId: string
const tag = crypto.randomUUID().slice(0, 6)

const call = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })
async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status)
  return (await response.json()) as T
}
async function succeeded(jobId: string): Promise<void> {
  await waitFor(`job ${jobId}`, async () => {
    const job = await json<{ status: string }>(await call('GET', `/jobs/${jobId}`))
    if (job.status !== 'succeeded') await Bun.sleep(20)
    return job.status === 'succeeded' || null
  })
}
async function activeSite(name: string): Promise<string> {
  const site = await json<{ id: string }>(
    await call('POST', '/sites', { customerId, name, type: 'wordpress', domain: `${name}.purge.test` }),
    201,
  )
  await waitFor(`site ${name}`, async () => {
    const now = await json<{ status: string }>(await call('GET', `/sites/${site.id}`))
    if (now.status !== 'active') await Bun.sleep(20)
    return now.status === 'active' || null
  })
  return site.id
}
const purgesOf = async (siteId: string) =>
  (
    await json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await call('GET', `/audit?subject=${siteId}`),
    )
  ).items.filter((item) => item.action === 'cache.purge')
const purgeJobsOf = (siteId: string) =>
  tp.panel.store.db
    .withTables<{ jobs: { id: string; status: string; kind: string; subject_id: string } }>()
    .selectFrom('jobs')
    .select(['id', 'status'])
    .where('kind', '=', 'cache.purge')
    .where('subject_id', '=', siteId)
    .execute()

/** Puts `backup.restored` in the event outbox as the backups plugin's restore does (the dispatcher delivers it). */
const outboxRow = (customerId: string, data: Record<string, unknown>) =>
  tp.panel.store.db
    .withTables<{ event_outbox: Record<string, string | null> }>()
    .insertInto('event_outbox')
    .values({
      id: newId('evt'),
      kind: 'backup.restored',
      occurred_at: new Date().toISOString(),
      customer_id: customerId,
      payload: JSON.stringify(data),
      dispatched_at: null,
      brand_id: null,
    })
    .execute()
/** `backup.restored` for a restore into `siteId`, as the backups plugin emits it. */
const restoredInto = (siteId: string, backupId: string) =>
  outboxRow(customerId, {
    id: backupId,
    siteId,
    customerId,
    restore: { jobId: `job_${backupId}`, siteId, files: true, databases: [], preRestoreBackupId: null },
  })

beforeAll(async () => {
  tp = await createTestPanel({
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  customerId = (await json<{ id: string }>(await call('POST', '/customers', { name: 'Purge Co' }), 201)).id
})
afterAll(() => tp?.panel.close())

describe('a restore into a site', () => {
  test('purges its whole page cache when its cache is on, and leaves a site with its cache off alone', async () => {
    const cached = await activeSite(`cached-${tag}`)
    const uncached = await activeSite(`uncached-${tag}`)
    const on = await json<{ jobId: string }>(await call('PATCH', `/sites/${cached}/cache`, { enabled: true }))
    await succeeded(on.jobId)
    const before = (await purgesOf(cached)).length

    // The site with its cache off first: once the cached site's purge is done, its event was delivered too.
    await restoredInto(uncached, `bkp_off${tag}`)
    await restoredInto(cached, `bkp_on${tag}`)
    const [job] = await waitFor('the purge job', async () => {
      const jobs = await purgeJobsOf(cached)
      if (jobs.length === 0) await Bun.sleep(20)
      return jobs.length > 0 ? jobs : null
    })
    await succeeded(String(job?.id))
    const purges = await purgesOf(cached)
    expect(purges.length).toBe(before + 1)
    expect(purges[0]?.details).toMatchObject({
      paths: null,
      removed: 0,
      reason: 'restored',
      backupId: `bkp_on${tag}`,
    })
    expect(await purgeJobsOf(uncached)).toEqual([])
    expect(await purgesOf(uncached)).toEqual([])
  })
})
