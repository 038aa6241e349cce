// A node that holds none of the sites the panel placed there looks the same whether it was rebuilt or its disk is
// not mounted yet: the automatic rounds put nothing back over it (no fresh homes on the mount point, no new database
// passwords), mark the sites, and clear the mark once the node holds them again; staff's reconciliation puts them back.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import type { Node } from '../nodes/contract.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from './contract.ts'
import { sitesPlugin } from './index.ts'

let tp: TestPanel
let token: string
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-reconcile-held-'))

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    // Rounds one after the other, as the schedule runs them (no staff asking).
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir, reconcileIntervalMs: 200 }),
      sitesPlugin(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  token = await tp.token()
  tp.panel.start()
})
afterAll(async () => {
  await tp.panel.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const get = async <T>(path: string) =>
  (await (await tp.request('GET', `/api/v1${path}`, { token })).json()) as T

/** Waits for a round of the schedule that began after now to be recorded; answers the node. */
async function nextRound(nodeId: string): Promise<Node> {
  const after = new Date().toISOString()
  return waitFor('a reconciliation round', async () => {
    const node = await get<Node>(`/nodes/${nodeId}`)
    return node.inventory && node.inventory.checkedAt > after ? node : null
  })
}

test('a node holding none of its sites gets nothing put back by the rounds until staff ask', async () => {
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customerId = ((await customer.json()) as { id: string }).id
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'shop',
      type: 'wordpress',
      domain: `shop-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  expect(created.status).toBe(201)
  const { id } = (await created.json()) as Site
  const site = await waitFor('the site to be active', async () => {
    const now = await get<Site>(`/sites/${id}`)
    return now.status === 'active' ? now : null
  })
  const nodeId = site.nodeId ?? ''
  const sites = join(dataDir, 'sites')
  // The disk is not mounted: the mount point is there, empty.
  renameSync(sites, `${sites}.mounted`)
  mkdirSync(sites)
  await nextRound(nodeId)
  const node = await nextRound(nodeId)
  expect(node.inventory).toMatchObject({ sites: 0, reapplied: 0, held: 1 })
  expect(existsSync(join(sites, site.id))).toBe(false)
  const held = await get<Site>(`/sites/${site.id}`)
  expect(held.drift).toMatchObject({ code: 'missing_on_node', jobId: null })
  expect(held.drift?.message).toContain(`/nodes/${nodeId}/reconcile`)
  expect(held.status).toBe('active')

  // Mounted: the site is there again, and the mark goes.
  rmSync(sites, { recursive: true })
  renameSync(`${sites}.mounted`, sites)
  await waitFor('the mark to be cleared', async () => (await get<Site>(`/sites/${site.id}`)).drift === null)
  expect((await nextRound(nodeId)).inventory).toMatchObject({ sites: 1, held: 0 })

  // Truly lost (the node rebuilt): staff, having looked, ask; the site is provisioned again.
  rmSync(join(sites, site.id), { recursive: true })
  await waitFor(
    'the site held back',
    async () => (await get<Site>(`/sites/${site.id}`)).drift?.jobId === null,
  )
  const asked = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
  expect(asked.status).toBe(202)
  await waitFor(
    'the site to be provisioned again',
    async () => {
      const now = await get<Site>(`/sites/${site.id}`)
      return now.drift?.code === 'content_lost' ? now : null
    },
    15_000,
  )
  expect(existsSync(join(sites, site.id, 'state.json'))).toBe(true)
})
