// The backups API's refusals that need no node's work, on both stores: a backup the customer's `backupMB` leaves no
// room for, another customer's token (404) and the billing role (403), a backup id the site
// has none of, and download links the panel never made. Backups taken and restored for real are
// backups.e2e.test.ts's (node side, run once).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { insertBackup } from './repository.ts'

let tp: TestPanel
let token: string
let limited: string
let unlimited: string

/** An active site of `customerId`. */
async function activeSite(customerId: string, name: string): Promise<string> {
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name, type: 'wordpress', domain: `${name}.backups.test` },
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

beforeAll(async () => {
  tp = await createTestPanel({
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
  const plan = await tp.request('POST', '/api/v1/plans', {
    token,
    body: { name: 'No backups', limits: { backupMB: 0 } },
  })
  expect(plan.status).toBe(201)
  const small = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Small' } })
  const smallId = ((await small.json()) as { id: string }).id
  const subscribed = await tp.request('POST', '/api/v1/subscriptions', {
    token,
    body: { customerId: smallId, planId: ((await plan.json()) as { id: string }).id },
  })
  expect(subscribed.status).toBe(201)
  const large = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Large' } })
  const largeId = ((await large.json()) as { id: string }).id
  limited = await activeSite(smallId, `small-${crypto.randomUUID().slice(0, 6)}`)
  unlimited = await activeSite(largeId, `large-${crypto.randomUUID().slice(0, 6)}`)
})
afterAll(() => tp.panel.close())

describe('POST /api/v1/sites/{id}/backups', () => {
  test('a customer whose plan leaves no backup storage is refused with 422 backup_limit_reached', async () => {
    const refused = await tp.request('POST', `/api/v1/sites/${limited}/backups`, { token })
    const problem = await expectProblem(refused, 422, 'backup_limit_reached')
    expect(problem).toMatchObject({ metric: 'backupMB', limit: 0, used: 0 })
  })

  test('the 202 says where the backup is (`Location`), as a creating POST does', async () => {
    const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Located' } })
    const siteId = await activeSite(
      ((await customer.json()) as { id: string }).id,
      `located-${crypto.randomUUID().slice(0, 6)}`,
    )
    const started = await tp.request('POST', `/api/v1/sites/${siteId}/backups`, { token })
    expect(started.status).toBe(202)
    const { backup } = (await started.json()) as { backup: { id: string } }
    expect(started.headers.get('location')).toBe(`/api/v1/sites/${siteId}/backups/${backup.id}`)
  })

  test('a customer whose every subscription is suspended is refused with 422 customer_suspended', async () => {
    const plan = await tp.request('POST', '/api/v1/plans', { token, body: { name: 'Suspended', limits: {} } })
    const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Suspended' } })
    const customerId = ((await customer.json()) as { id: string }).id
    const siteId = await activeSite(customerId, `suspended-${crypto.randomUUID().slice(0, 6)}`)
    const subscribed = await tp.request('POST', '/api/v1/subscriptions', {
      token,
      body: { customerId, planId: ((await plan.json()) as { id: string }).id },
    })
    const subscriptionId = ((await subscribed.json()) as { id: string }).id
    const suspended = await tp.request('POST', `/api/v1/subscriptions/${subscriptionId}/suspend`, {
      token,
      body: { reason: 'unpaid' },
    })
    expect(suspended.status).toBe(200)
    await expectProblem(
      await tp.request('POST', `/api/v1/sites/${siteId}/backups`, { token }),
      422,
      'customer_suspended',
    )
  })

  test('a site never backed up lists no backups', async () => {
    const list = await tp.request('GET', `/api/v1/sites/${unlimited}/backups`, { token })
    expect(await list.json()).toEqual({ items: [], nextCursor: null })
  })
})

describe('tenancy and scopes', () => {
  test('another customer’s token gets 404 for the site’s backups; a billing member 403', async () => {
    const other = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Other' } })
    const otherToken = await tp.token({ customerId: ((await other.json()) as { id: string }).id })
    const site = (await (await tp.request('GET', `/api/v1/sites/${unlimited}`, { token })).json()) as {
      customerId: string
    }
    const member = await createTestUser(tp.panel.store.db, { email: 'billing@large.test', staffRole: null })
    const added = await tp.request('POST', `/api/v1/customers/${site.customerId}/members`, {
      token,
      body: { email: member.email, role: 'billing' },
    })
    expect(added.status).toBe(201)
    const billing = await tp.token({ user: member })
    const backupId = 'bkp_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'
    for (const [method, path, body] of [
      ['GET', `/api/v1/sites/${unlimited}/backups`, undefined],
      ['POST', `/api/v1/sites/${unlimited}/backups`, undefined],
      ['POST', `/api/v1/sites/${unlimited}/backups/${backupId}/restore`, { files: true }],
      ['POST', `/api/v1/sites/${unlimited}/backups/${backupId}/download`, undefined],
    ] as const) {
      await expectProblem(await tp.request(method, path, { token: otherToken, body }), 404, 'not_found')
      await expectProblem(await tp.request(method, path, { token: billing, body }), 403, 'insufficient_scope')
    }
  })

  test('a backup the site has none of is 404, for reads and restores alike', async () => {
    const backupId = 'bkp_01JDQ3V6Y4T1ZK0M2N5P7R9SAA'
    await expectProblem(
      await tp.request('GET', `/api/v1/sites/${unlimited}/backups/${backupId}`, { token }),
      404,
      'not_found',
    )
    await expectProblem(
      await tp.request('POST', `/api/v1/sites/${unlimited}/backups/${backupId}/restore`, {
        token,
        body: { databases: true },
      }),
      404,
      'not_found',
    )
  })
})

/** A completed backup of `siteId` as the store holds one (taking it for real is the node's: the e2e tests'). */
async function completedBackup(siteId: string): Promise<string> {
  const site = (await (await tp.request('GET', `/api/v1/sites/${siteId}`, { token })).json()) as {
    customerId: string
    nodeId: string
  }
  const targets = await tp.request('GET', '/api/v1/backup-targets', { token })
  const target = ((await targets.json()) as { items: { id: string; default: boolean }[] }).items.find(
    (item) => item.default,
  )
  const id = `bkp_01JDQ3V6Y4T1ZK0M2N5P7R9S${crypto
    .randomUUID()
    .slice(0, 2)
    .toUpperCase()
    .replace(/[ILOU]/g, 'A')}`
  const at = new Date().toISOString()
  await insertBackup(tp.panel.store.db, {
    id,
    site_id: siteId,
    customer_id: site.customerId,
    target_id: target?.id ?? '',
    node_id: site.nodeId,
    status: 'completed',
    reason: 'manual',
    verified: 1,
    size_bytes: 10,
    stored_bytes: 10,
    contents_json: JSON.stringify({ files: { count: 1, bytes: 10 }, databases: [], record: true }),
    checks_json: null,
    snapshot_id: 'f00d',
    job_id: null,
    error_code: null,
    error_message: null,
    restore_job_id: null,
    created_at: at,
    finished_at: at,
    forgotten_at: null,
  })
  return id
}

describe('restoring into a new site: the refusals of its creation', () => {
  test('are located at the request’s own fields (`body.into.newSite.…`), not at POST /sites’s', async () => {
    const backupId = await completedBackup(unlimited)
    const taken = (await (await tp.request('GET', `/api/v1/sites/${unlimited}`, { token })).json()) as {
      domain: string
    }
    const restore = (newSite: Record<string, unknown>) =>
      tp.request('POST', `/api/v1/sites/${unlimited}/backups/${backupId}/restore`, {
        token,
        body: { files: true, into: { newSite } },
      })
    for (const [newSite, status, code, location] of [
      [{ domain: 'not a domain' }, 422, 'invalid_domain', 'body.into.newSite.domain'],
      [{ domain: taken.domain }, 409, 'domain_in_use', 'body.into.newSite.domain'],
      [
        {
          domain: `copy-${crypto.randomUUID().slice(0, 6)}.backups.test`,
          nodeId: 'nod_01JDQ3V6Y4T1ZK0M2N5P7R9SAA',
        },
        422,
        'unknown_node',
        'body.into.newSite.nodeId',
      ],
    ] as const) {
      const problem = await expectProblem(await restore(newSite), status, code)
      expect(problem.errors).toEqual([expect.objectContaining({ location, code })])
    }
  })
})

describe('GET /api/v1/capabilities', () => {
  test('says what backups offer: target kinds, the site types a restore can clone, the night window, checks', async () => {
    const answer = await tp.request('GET', '/api/v1/capabilities', { token })
    const { installation } = (await answer.json()) as {
      installation: { plugins: { name: string; capabilities: Record<string, unknown> }[] }
    }
    expect(installation.plugins.find((plugin) => plugin.name === 'backups')?.capabilities).toEqual({
      targetKinds: ['local', 'sftp', 'rest', 's3'],
      schedules: ['off', 'daily', 'weekly'],
      cloneableSiteTypes: ['wordpress', 'php', 'static'],
      scheduleWindow: { startHour: 1, hours: 4 },
      backupsPerNode: 2,
      verify: { readDataPercent: 10, sampleFiles: 25 },
    })
  })
})

describe('download links', () => {
  test('a token the panel never made is 404 download_link_invalid', async () => {
    await expectProblem(
      await tp.request('GET', `/api/v1/backup-downloads?token=${'x'.repeat(43)}`),
      404,
      'download_link_invalid',
    )
  })
})
