// The site lifecycle as a client sees it: provisioning on the local node to active, suspend and unsuspend, changes,
// deletion, and every refused transition.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from './contract.ts'
import { sitesPlugin } from './index.ts'

let tp: TestPanel
let token: string
let customerId: string
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-sites-'))

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [brandsPlugin(), customersPlugin(), nodesPlugin({ dataDir }), sitesPlugin()],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  token = await tp.token()
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  customerId = ((await customer.json()) as { id: string }).id
  tp.panel.start()
})
afterAll(() => tp.panel.close())

async function site(id: string): Promise<Site> {
  return (await (await tp.request('GET', `/api/v1/sites/${id}`, { token })).json()) as Site
}

async function until(id: string, status: string): Promise<Site> {
  const deadline = Date.now() + 3_000
  for (;;) {
    const current = await site(id)
    if (current.status === status) return current
    if (Date.now() > deadline)
      throw new Error(`site ${id} never became ${status}: ${JSON.stringify(current)}`)
    await Bun.sleep(10)
  }
}

async function activeSite(): Promise<Site> {
  const response = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Blog',
      type: 'wordpress',
      domain: `b-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  expect(response.status).toBe(201)
  const created = (await response.json()) as Site
  return until(created.id, 'active')
}

async function code(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code
}

describe('site lifecycle', () => {
  test('a new site is provisioned on the local node by its job and becomes active', async () => {
    const active = await activeSite()
    // The site turns active in the job's last step; the job records its own end just after.
    const job = await waitFor('the provisioning job to finish', async () => {
      const read = (await (await tp.request('GET', `/api/v1/jobs/${active.jobId}`, { token })).json()) as {
        status: string
        progress: number
      }
      return read.status === 'running' ? null : read
    })
    expect(job).toMatchObject({ status: 'succeeded', progress: 100 })
    expect(existsSync(join(dataDir, 'sites', active.id, 'htdocs'))).toBe(true)
  })

  test('suspend and unsuspend move between active and suspended; other moves are 409', async () => {
    const active = await activeSite()
    const suspended = await tp.request('POST', `/api/v1/sites/${active.id}/suspend`, { token })
    expect(suspended.status).toBe(200)
    expect(((await suspended.json()) as Site).status).toBe('suspended')
    const again = await tp.request('POST', `/api/v1/sites/${active.id}/suspend`, { token })
    expect(again.status).toBe(409)
    expect(await code(again)).toBe('illegal_site_transition')
    const back = await tp.request('POST', `/api/v1/sites/${active.id}/unsuspend`, { token })
    expect(((await back.json()) as Site).status).toBe('active')
  })

  test('suspending by hand is staff work with site:suspend: site:update alone is 403, and only PATCH is its', async () => {
    const active = await activeSite()
    const updater = await tp.token({ scopes: ['site:read', 'site:update'] })
    for (const verb of ['suspend', 'unsuspend']) {
      const refused = await tp.request('POST', `/api/v1/sites/${active.id}/${verb}`, { token: updater })
      expect(refused.status).toBe(403)
      expect(await code(refused)).toBe('insufficient_scope')
    }
    const renamed = await tp.request('PATCH', `/api/v1/sites/${active.id}`, {
      token: updater,
      body: { name: 'Still mine to rename' },
    })
    expect(renamed.status).toBe(200)
    const suspender = await tp.token({ scopes: ['site:suspend'] })
    const suspended = await tp.request('POST', `/api/v1/sites/${active.id}/suspend`, { token: suspender })
    expect(await suspended.json()).toMatchObject({ status: 'suspended', suspendedByStaff: true })
    const back = await tp.request('POST', `/api/v1/sites/${active.id}/unsuspend`, { token: suspender })
    expect(await back.json()).toMatchObject({ status: 'active', suspendedByStaff: false })
  })

  test('PATCH changes the name and disk limit, refuses a negative limit, and waits while deleting', async () => {
    const active = await activeSite()
    const patched = await tp.request('PATCH', `/api/v1/sites/${active.id}`, {
      token,
      body: { name: 'Renamed', limits: { diskMB: 500 } },
    })
    expect(patched.status).toBe(200)
    expect(await patched.json()).toMatchObject({ name: 'Renamed', limits: { diskMB: 500 } })
    const negative = await tp.request('PATCH', `/api/v1/sites/${active.id}`, {
      token,
      body: { limits: { diskMB: -1 } },
    })
    expect(negative.status).toBe(422)
    const deleting = await tp.request('DELETE', `/api/v1/sites/${active.id}`, { token })
    expect(deleting.status).toBe(202)
    const busy = await tp.request('PATCH', `/api/v1/sites/${active.id}`, {
      token,
      body: { limits: { diskMB: 10 } },
    })
    // Either still deleting (409 site_busy) or already gone (404).
    expect([404, 409]).toContain(busy.status)
    if (busy.status === 409) expect(await code(busy)).toBe('site_busy')
  })

  test('DELETE ends with the site gone from the panel and from the node', async () => {
    const active = await activeSite()
    const response = await tp.request('DELETE', `/api/v1/sites/${active.id}`, { token })
    expect(response.status).toBe(202)
    expect(((await response.json()) as Site).status).toBe('deleting')
    const deadline = Date.now() + 3_000
    while ((await tp.request('GET', `/api/v1/sites/${active.id}`, { token })).status !== 404) {
      if (Date.now() > deadline) throw new Error('the site was never removed')
      await Bun.sleep(10)
    }
    expect(existsSync(join(dataDir, 'sites', active.id))).toBe(false)
  })

  test('with no active node, creating a site is 409 no_node_available', async () => {
    const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token })).json()) as {
      items: { id: string }[]
    }
    for (const node of nodes.items)
      await tp.request('PATCH', `/api/v1/nodes/${node.id}`, { token, body: { status: 'draining' } })
    const response = await tp.request('POST', '/api/v1/sites', {
      token,
      body: { customerId, name: 'Late', type: 'wordpress', domain: 'late.example.com' },
    })
    expect(response.status).toBe(409)
    expect(await code(response)).toBe('no_node_available')
    for (const node of nodes.items)
      await tp.request('PATCH', `/api/v1/nodes/${node.id}`, { token, body: { status: 'active' } })
  })

  test('placement puts each new site on the active node holding fewest, and deleting frees its place', async () => {
    const added = await tp.request('POST', '/api/v1/nodes', {
      token,
      body: { name: `spread-${crypto.randomUUID().slice(0, 8)}`, driver: 'local', hostname: 'localhost' },
    })
    expect(added.status).toBe(201)
    const fresh = ((await added.json()) as { id: string }).id
    // The new node holds nothing, so the next site goes there; then it holds one, fewer than the local node.
    const first = await activeSite()
    expect(first.nodeId).toBe(fresh)
    const counts = async () =>
      new Map(
        (
          await tp.panel.store.db
            .withTables<{ node_site_counts: { node_id: string; sites: number } }>()
            .selectFrom('node_site_counts')
            .selectAll()
            .execute()
        ).map((row) => [row.node_id, row.sites]),
      )
    expect((await counts()).get(fresh)).toBe(1)
    await tp.request('DELETE', `/api/v1/sites/${first.id}`, { token })
    const deadline = Date.now() + 3_000
    while ((await counts()).get(fresh) !== 0) {
      if (Date.now() > deadline) throw new Error('the count never went back to 0')
      await Bun.sleep(10)
    }
    expect((await activeSite()).nodeId).toBe(fresh)
    await tp.request('PATCH', `/api/v1/nodes/${fresh}`, { token, body: { status: 'disabled' } })
  })
})
