// GET /api/v1/usage on the standard installation: counts and traffic within the caller's view, kept as rows change.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { NodesTables } from '../plugins/nodes/migrations.ts'
import { hourOf, type RecentTraffic } from '../plugins/nodes/traffic.ts'
import { createTestPanel, createTestUser, type Page, type TestPanel } from './testing/index.ts'

/** What the tests read of `GET /usage`: the counters, and the traffic the nodes plugin adds. */
type Usage = Record<'customers' | 'sites' | 'domains' | 'diskMB', number> & {
  traffic: RecentTraffic
}

let tp: TestPanel
let staffToken: string
let brandX: string
let customers: Record<'a' | 'b' | 'x', string>
const sites: Record<'a' | 'b' | 'x', string[]> = { a: [], b: [], x: [] }

async function post(path: string, body: unknown): Promise<string> {
  const response = await tp.request('POST', path, { token: staffToken, body })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

async function usage(token: string): Promise<Usage> {
  const response = await tp.request('GET', '/api/v1/usage', { token })
  expect(response.status).toBe(200)
  return (await response.json()) as Usage
}

beforeAll(async () => {
  tp = await createTestPanel()
  staffToken = await tp.token()
  brandX = await post('/api/v1/brands', { name: 'X Hosting' })
  customers = {
    a: await post('/api/v1/customers', { name: 'A' }),
    b: await post('/api/v1/customers', { name: 'B' }),
    x: await post('/api/v1/customers', { name: 'X', brandId: brandX }),
  }
  let n = 0
  for (const [customer, count] of [
    ['a', 2],
    ['b', 1],
    ['x', 3],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const site = await post('/api/v1/sites', {
        customerId: customers[customer],
        name: `S${n}`,
        type: 'wordpress',
        domain: `s${n++}.example.com`,
      })
      sites[customer].push(site)
    }
  }
})
afterAll(() => tp.panel.close())

test('platform staff see the whole installation', async () => {
  expect(await usage(staffToken)).toMatchObject({ customers: 3, sites: 6, domains: 6 })
})

test('brand staff see their brand, members their teams, limited tokens their customer', async () => {
  const brandStaff = await createTestUser(tp.panel.store.db, {
    email: 'x@staff.example',
    staffRole: 'brand',
    brandId: brandX,
  })
  expect(await usage(await tp.token({ user: brandStaff }))).toMatchObject({ customers: 1, sites: 3 })
  const member = await createTestUser(tp.panel.store.db, { email: 'm@a.example', staffRole: null })
  await tp.request('POST', `/api/v1/customers/${customers.a}/members`, {
    token: staffToken,
    body: { email: member.email, role: 'developer' },
  })
  expect(await usage(await tp.token({ user: member }))).toMatchObject({ customers: 1, sites: 2, domains: 2 })
  expect(await usage(await tp.token({ customerId: customers.b }))).toMatchObject({ customers: 1, sites: 1 })
})

test('a refused create changes no count', async () => {
  const before = await usage(staffToken)
  const refused = await tp.request('POST', '/api/v1/sites', {
    token: staffToken,
    body: { customerId: customers.a, name: 'Dup', type: 'wordpress', domain: 's0.example.com' },
  })
  expect(refused.status).toBe(409)
  expect(await usage(staffToken)).toEqual(before)
})

test('recent traffic sums what nodes reported in the last 24 hours and 7 days', async () => {
  // The sites run on the local node, which reports them with its agent token.
  const nodes = await tp.request('GET', '/api/v1/nodes', { token: staffToken })
  const local = ((await nodes.json()) as Page<{ id: string; name: string }>).items.find(
    (node) => node.name === 'local',
  )
  const rotated = await tp.request('POST', `/api/v1/nodes/${local?.id}/rotate-agent-token`, {
    token: staffToken,
  })
  const { agentToken } = (await rotated.json()) as { agentToken: string }
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000)
  const sample = (siteId: string | undefined, hours: number, requests: number, bytes: number) => ({
    siteId,
    requests,
    bytes,
    at: hoursAgo(hours).toISOString(),
  })
  const reported = await tp.request('POST', `/api/v1/nodes/${local?.id}/metrics`, {
    headers: { authorization: `Bearer ${agentToken}` },
    body: {
      samples: [
        sample(sites.a[0], 1, 100, 1000),
        sample(sites.a[1], 30, 10, 50),
        sample(sites.x[0], 2, 7, 70),
      ],
    },
  })
  expect(reported.status).toBe(200)
  // Older than a week (nodes may no longer report it, but its hour is still kept): counted in neither.
  await tp.panel.store.db
    .withTables<NodesTables>()
    .insertInto('node_traffic')
    .values(
      ['all', `brand:${brandX}`, `customer:${customers.x}`].map((scope_key) => ({
        scope_key,
        hour: hourOf(hoursAgo(24 * 8)),
        requests: 999,
        bytes: 999,
      })),
    )
    .execute()
  expect((await usage(staffToken)).traffic).toEqual({
    last24h: { requests: 107, bytes: 1070 },
    last7d: { requests: 117, bytes: 1120 },
  })
  expect((await usage(await tp.token({ customerId: customers.a }))).traffic.last7d).toEqual({
    requests: 110,
    bytes: 1050,
  })
})
