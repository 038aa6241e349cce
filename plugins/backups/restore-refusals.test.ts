// Restores the panel refuses before any job starts (so before a pre-restore backup is taken, or the node is asked):
// paths outside what a restore may replace, and a site staff suspended. On both stores; the backups are rows
// written here as a completed backup's would be (taking real ones is backups.e2e.test.ts's, node side).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../core/index.ts'
import { createTestPanel, expectProblem, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import type { BackupTables } from './migrations.ts'

let tp: TestPanel
let token: string
let customerId: string

/** An active site of the customer. */
async function activeSite(name: string): Promise<string> {
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name, type: 'wordpress', domain: `${name}.restore-refusals.test` },
  })
  expect(created.status).toBe(201)
  const { id } = (await created.json()) as { id: string }
  await waitFor(`site ${id} to be active`, async () => {
    const site = (await (await tp.request('GET', `/api/v1/sites/${id}`, { token })).json()) as {
      status: string
    }
    if (site.status === 'active') return true
    await Bun.sleep(20)
    return null
  })
  return id
}

/** A completed backup of the site holding its files, as the take job leaves one. */
async function completedBackup(siteId: string): Promise<string> {
  const db = tp.panel.store.db.withTables<BackupTables>()
  const target = await db
    .selectFrom('backup_targets')
    .select('id')
    .where('is_default', '=', 1)
    .executeTakeFirstOrThrow()
  const id = newId('bkp')
  const now = new Date().toISOString()
  await db
    .insertInto('backups')
    .values({
      id,
      site_id: siteId,
      customer_id: customerId,
      target_id: target.id,
      node_id: null,
      status: 'completed',
      reason: 'manual',
      verified: 1,
      size_bytes: 10,
      stored_bytes: 10,
      contents_json: JSON.stringify({ files: { count: 1, bytes: 10 }, databases: [] }),
      checks_json: null,
      snapshot_id: 'f'.repeat(64),
      job_id: null,
      error_code: null,
      error_message: null,
      restore_job_id: null,
      created_at: now,
      finished_at: now,
      forgotten_at: null,
    })
    .execute()
  return id
}

/** The site's backups, as its customer lists them. */
async function backupsOf(siteId: string): Promise<{ reason: string }[]> {
  const list = await tp.request('GET', `/api/v1/sites/${siteId}/backups`, { token })
  return ((await list.json()) as { items: { reason: string }[] }).items
}

beforeAll(async () => {
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 } })
  tp.panel.start()
  token = await tp.token()
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Restorer' } })
  customerId = ((await customer.json()) as { id: string }).id
})
afterAll(() => tp.panel.close())

describe('restore paths', () => {
  test('a path outside the documents (/logs, /tmp, the home itself) is 422 invalid_restore_path, nothing started', async () => {
    const site = await activeSite(`paths-${crypto.randomUUID().slice(0, 6)}`)
    const backup = await completedBackup(site)
    for (const files of [['/logs/access.log'], ['/tmp'], ['/'], ['/htdocs/ok', '/htdocsx'], ['/.ssh']]) {
      const refused = await tp.request('POST', `/api/v1/sites/${site}/backups/${backup}/restore`, {
        token,
        body: { files },
      })
      await expectProblem(refused, 422, 'invalid_restore_path')
    }
    // No pre-restore backup was taken for any of them.
    expect((await backupsOf(site)).map((row) => row.reason)).toEqual(['manual'])
  })
})

describe('a suspended site', () => {
  test('is not restored into (409 site_suspended, as the files API refuses it): no pre-restore backup', async () => {
    const site = await activeSite(`susp-${crypto.randomUUID().slice(0, 6)}`)
    const backup = await completedBackup(site)
    expect((await tp.request('POST', `/api/v1/sites/${site}/suspend`, { token })).status).toBe(200)
    const refused = await tp.request('POST', `/api/v1/sites/${site}/backups/${backup}/restore`, {
      token,
      body: { files: true },
    })
    await expectProblem(refused, 409, 'site_suspended')
    expect((await backupsOf(site)).map((row) => row.reason)).toEqual(['manual'])
  })
})
