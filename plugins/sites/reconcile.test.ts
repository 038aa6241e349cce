// Reconciliation of the local node, through the API: a site whose home the node lost is provisioned again and says
// so (`drift`, `site.drifted`); a site the node serves in the other state is put back in its recorded one; what the
// node holds that the panel does not know (a site, a server block) is recorded on the node and left where it is.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
let customerId: string
let nodeId: string
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-reconcile-'))

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    // Only when asked (and once at the start): the test says when the node is compared.
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir, reconcileIntervalMs: 0 }),
      sitesPlugin(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  token = await tp.token()
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  customerId = ((await customer.json()) as { id: string }).id
  const nodes = (await (await tp.request('GET', '/api/v1/nodes', { token })).json()) as { items: Node[] }
  nodeId = nodes.items[0]?.id ?? ''
  tp.panel.start()
  // The local node is compared once as the panel starts: that round is over before the tests ask for theirs.
  await waitFor(
    'the start’s reconciliation',
    async () => (await get<Node>(`/nodes/${nodeId}`)).inventory !== null,
    10_000,
  )
})
afterAll(async () => {
  await tp.panel.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const get = async <T>(path: string) =>
  (await (await tp.request('GET', `/api/v1${path}`, { token })).json()) as T

async function activeSite(name: string): Promise<Site> {
  const response = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name,
      type: 'wordpress',
      domain: `${name}-${crypto.randomUUID().slice(0, 8)}.example.com`,
    },
  })
  expect(response.status).toBe(201)
  const created = (await response.json()) as Site
  return waitFor(`${name} to be active`, async () => {
    const site = await get<Site>(`/sites/${created.id}`)
    return site.status === 'active' ? site : null
  })
}

/** Reconciles the node now and waits for the job to end; answers the job. */
async function reconcile(): Promise<{ status: string; result: Record<string, number> }> {
  const started = await tp.request('POST', `/api/v1/nodes/${nodeId}/reconcile`, { token })
  expect(started.status).toBe(202)
  const { jobId } = (await started.json()) as { jobId: string }
  return waitFor('the reconciliation to end', async () => {
    const job = await get<{ status: string; result: Record<string, number> }>(`/jobs/${jobId}`)
    return job.status === 'succeeded' || job.status === 'failed' ? job : null
  })
}

/** What the node recorded of the site in its `state.json`. */
const stateOnNode = (siteId: string) =>
  JSON.parse(readFileSync(join(dataDir, 'sites', siteId, 'state.json'), 'utf8')) as { state: string }

const eventsOf = async (kind: string, siteId: string) => {
  const rows = await tp.panel.store.db
    .withTables<{ event_outbox: { id: string; kind: string; payload: string } }>()
    .selectFrom('event_outbox')
    .selectAll()
    .where('kind', '=', kind)
    // In the order they happened: PostgreSQL answers an unordered read in no order (rows marked dispatched move).
    .orderBy('id')
    .execute()
  return rows.map((row) => JSON.parse(row.payload) as Site).filter((site) => site.id === siteId)
}

/** The `node.drifted` events so far. */
const nodeDrifted = () =>
  tp.panel.store.db
    .withTables<{ event_outbox: { kind: string } }>()
    .selectFrom('event_outbox')
    .selectAll()
    .where('kind', '=', 'node.drifted')
    .execute()

describe('reconciling a node with the panel’s records', () => {
  test('a site the node lost is provisioned again and marked drifted: missing_on_node, then content_lost once it is back', async () => {
    const site = await activeSite('lost')
    const home = join(dataDir, 'sites', site.id)
    expect(existsSync(home)).toBe(true)
    // The node loses the site (its disk replaced, a backup of the panel restored elsewhere).
    rmSync(home, { recursive: true, force: true })
    rmSync(join(dataDir, 'nginx', 'sites', `${site.id}.conf`), { force: true })
    const job = await reconcile()
    expect(job).toMatchObject({ status: 'succeeded', result: { reapplied: 1, unknown: 0 } })
    const restored = await waitFor('the site to be provisioned again', async () => {
      const now = await get<Site>(`/sites/${site.id}`)
      return now.drift?.code === 'content_lost' ? now : null
    })
    // Back on the node, served as it was recorded, and still `active` all along.
    expect(restored.status).toBe('active')
    expect(stateOnNode(site.id).state).toBe('active')
    expect(existsSync(join(dataDir, 'nginx', 'sites', `${site.id}.conf`))).toBe(true)
    expect(restored.drift).toMatchObject({ jobId: restored.jobId, detectedAt: expect.any(String) })
    expect(restored.drift?.message).toContain('placeholder page')
    // Said once, when it was found missing.
    const drifted = await eventsOf('site.drifted', site.id)
    expect(drifted.map((event) => event.drift?.code)).toEqual(['missing_on_node'])
    // A second round finds it in place: nothing to do.
    expect((await reconcile()).result).toMatchObject({ reapplied: 0 })
    // Its owner clears the drift once the files are back.
    const cleared = await tp.request('PATCH', `/api/v1/sites/${site.id}`, { token, body: { drift: null } })
    expect(cleared.status).toBe(200)
    expect(((await cleared.json()) as Site).drift).toBeNull()
  })

  test('a site that cannot be put back is restore_failed, said once however many rounds try again', async () => {
    const site = await activeSite('stuck')
    const home = join(dataDir, 'sites', site.id)
    // Where its home was, something the node refuses to lay a site out over.
    rmSync(home, { recursive: true, force: true })
    writeFileSync(home, 'not a directory\n')
    await reconcile()
    const failed = await waitFor('the restore to give up', async () => {
      const now = await get<Site>(`/sites/${site.id}`)
      return now.drift?.code === 'restore_failed' ? now : null
    })
    expect(failed.status).toBe('active')
    expect(failed.drift?.message).toContain('unsafe_site_directory')
    // Tried again at the next round, still failing: no new event.
    await reconcile()
    await waitFor('the second restore to give up', async () => {
      const now = await get<Site>(`/sites/${site.id}`)
      return now.drift?.code === 'restore_failed' && now.drift.jobId !== failed.drift?.jobId ? now : null
    })
    const drifted = await eventsOf('site.drifted', site.id)
    expect(drifted.map((event) => event.drift?.code)).toEqual(['missing_on_node', 'restore_failed'])
    // Gone again, so the next rounds have nothing of it to do.
    rmSync(home, { force: true })
    expect((await tp.request('DELETE', `/api/v1/sites/${site.id}`, { token })).status).toBe(202)
    await waitFor(
      'the site to be deleted',
      async () => (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).status === 404,
    )
  })

  test('a site the node serves in the other state is put back in the recorded one, without drift', async () => {
    const site = await activeSite('state')
    const suspended = await tp.request('POST', `/api/v1/sites/${site.id}/suspend`, { token })
    expect(suspended.status).toBe(200)
    await waitFor('the suspension on the node', () => stateOnNode(site.id).state === 'suspended')
    // Someone unsuspends it on the node by hand.
    const path = join(dataDir, 'sites', site.id, 'state.json')
    writeFileSync(path, readFileSync(path, 'utf8').replace('"suspended"', '"active"'))
    expect((await reconcile()).result).toMatchObject({ reapplied: 1 })
    await waitFor('the site suspended again on the node', () => stateOnNode(site.id).state === 'suspended')
    expect((await get<Site>(`/sites/${site.id}`)).drift).toBeNull()
  })

  test('what the node holds that the panel does not know is recorded on the node and left alone', async () => {
    const stranger = 'site_01JDQ3V6Y4T1ZK0M2N5P7R9ZZZ'
    mkdirSync(join(dataDir, 'sites', stranger), { recursive: true })
    writeFileSync(
      join(dataDir, 'sites', stranger, 'state.json'),
      JSON.stringify({ siteId: stranger, domain: 'stranger.example.org', state: 'active' }),
    )
    const block = join(dataDir, 'nginx', 'sites', 'hand-made.conf')
    writeFileSync(block, '# written by hand\n')
    const driftedBefore = (await nodeDrifted()).length
    const job = await reconcile()
    expect(job.result).toMatchObject({ unknown: 2 })
    const node = await get<Node>(`/nodes/${nodeId}`)
    expect(node.inventory?.unknown).toEqual(
      expect.arrayContaining([
        { kind: 'site', name: stranger, domain: 'stranger.example.org' },
        { kind: 'server-block', name: 'hand-made' },
      ]),
    )
    expect(node.inventory?.checkedAt).toEqual(expect.any(String))
    // Left where they are.
    expect(existsSync(join(dataDir, 'sites', stranger, 'state.json'))).toBe(true)
    expect(readFileSync(block, 'utf8')).toBe('# written by hand\n')
    // Reported once: a second round finding the same says nothing new.
    await reconcile()
    expect((await nodeDrifted()).length).toBe(driftedBefore + 1)
  })

  test('only platform staff reconcile a node, and a node that cannot be reached is 503 node_unavailable', async () => {
    const node = await tp.request('POST', '/api/v1/nodes', {
      token,
      body: { name: `away-${crypto.randomUUID().slice(0, 6)}`, driver: 'agent', hostname: '10.0.0.9' },
    })
    const away = (await node.json()) as Node
    const refused = await tp.request('POST', `/api/v1/nodes/${away.id}/reconcile`, { token })
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { code: string }).code).toBe('node_unavailable')
  })
})
