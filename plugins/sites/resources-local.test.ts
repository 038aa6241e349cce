// A site's resources read from a real node: the panel's local node serving with the machine's nginx and PHP-FPM,
// whose kernel counts what the site's group uses. The answer carries the limits the site runs under (its node's
// defaults here) and says, kind by kind, whether the node enforces them, as the node's capabilities do.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  endServingPanel,
  freePort,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import type { Node } from '../nodes/contract.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from './contract.ts'
import { sitesPlugin } from './index.ts'

let tp: TestPanel
let token: string
const dataDir = mkdtempSync(join(tmpdir(), 'plinth-resources-'))
// The node's own directory: it serves the sites with the machine's nginx and PHP-FPM, each site in its group.
const sitesDir = mkdtempSync(join(tmpdir(), 'plinth-resources-node-'))
const made: string[] = []

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir,
        reconcileIntervalMs: 0,
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      sitesPlugin({ limitsCheckIntervalMs: 0 }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
})
afterAll(async () => {
  // Deleting the sites ends their groups on the node.
  await endServingPanel(tp, { token, siteIds: made, nodeDir: sitesDir, remove: [sitesDir, dataDir] })
}, 60_000)

const get = async <T>(path: string) => {
  const response = await tp.request('GET', `/api/v1${path}`, { token })
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

interface Use {
  used: number
  limit: number | null
  source: string
  hits24h: number
  enforced: boolean
  unit: string
}

test('the local node answers what a site uses against its node’s defaults, saying what it enforces', async () => {
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customerId = ((await customer.json()) as { id: string }).id
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: {
      customerId,
      name: 'Measured',
      type: 'wordpress',
      domain: `measured-${crypto.randomUUID().slice(0, 8)}.example.com`,
      limits: { diskMB: 200 },
    },
  })
  expect(created.status).toBe(201)
  const site = (await created.json()) as Site
  made.push(site.id)
  await waitFor(
    'the site to be active',
    async () => (await get<Site>(`/sites/${site.id}`)).status === 'active',
    20_000,
  )
  const node = await get<Node>(`/nodes/${site.nodeId}`)
  const enforcement = node.agent.capabilities?.limits
  expect(enforcement).toBeDefined()

  const resources = await get<
    Record<'cpu' | 'memory' | 'processes' | 'disk', Use> & { siteId: string; at: string }
  >(`/sites/${site.id}/resources`)
  expect(resources.siteId).toBe(site.id)
  expect(Date.now() - Date.parse(resources.at)).toBeLessThan(60_000)
  expect(resources.cpu).toMatchObject({ limit: 100, source: 'node', unit: 'percent' })
  expect(resources.memory).toMatchObject({ limit: 1024, source: 'node', unit: 'MB' })
  expect(resources.processes).toMatchObject({ limit: 128, source: 'node', unit: 'processes' })
  expect(resources.disk).toMatchObject({ limit: 200, source: 'site', unit: 'MB' })
  for (const kind of ['cpu', 'memory', 'processes', 'disk'] as const) {
    expect(resources[kind].enforced).toBe(enforcement?.[kind].enforced ?? false)
    expect(resources[kind].used).toBeGreaterThanOrEqual(0)
    expect(resources[kind].hits24h).toBe(0)
  }
  // Its files (the placeholder page, its state) take some disk, well within its quota.
  expect(resources.disk.used).toBeLessThan(200)
  // This machine's kernel has the cpu, memory and pids controllers writable: a serving node enforces those.
  expect(enforcement).toMatchObject({
    cpu: { enforced: true },
    memory: { enforced: true },
    processes: { enforced: true },
  })
})
