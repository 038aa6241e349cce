// GET /api/v1/usage on the standard installation: counts and traffic within the caller's view, kept as rows change.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createUser, recordTraffic, type Usage } from '../core/index.ts'
import { createTestPanel, type TestPanel } from './testing/index.ts'

let tp: TestPanel
let staffToken: string
let brandX: string
let customers: Record<'a' | 'b' | 'x', string>

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
      await post('/api/v1/sites', {
        customerId: customers[customer],
        name: `S${n}`,
        type: 'wordpress',
        domain: `s${n++}.example.com`,
      })
    }
  }
})
afterAll(() => tp.panel.close())

test('platform staff see the whole installation', async () => {
  expect(await usage(staffToken)).toMatchObject({ customers: 3, sites: 6, domains: 6, databases: 0 })
})

test('brand staff see their brand, members their teams, limited tokens their customer', async () => {
  const brandStaff = await createUser(tp.panel.store.db, {
    email: 'x@staff.example',
    password: 'correct horse battery',
    staffRole: 'brand',
    brandId: brandX,
  })
  expect(await usage(await tp.token({ user: brandStaff }))).toMatchObject({ customers: 1, sites: 3 })
  const member = await createUser(tp.panel.store.db, {
    email: 'm@a.example',
    password: 'correct horse battery',
    staffRole: null,
  })
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
  const now = new Date()
  const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000)
  await tp.panel.store.transaction(async (trx) => {
    await recordTraffic(trx, customers.a, { at: hoursAgo(1), requests: 100, bytes: 1000 })
    await recordTraffic(trx, customers.a, { at: hoursAgo(30), requests: 10, bytes: 50 })
    await recordTraffic(trx, customers.x, { at: hoursAgo(2), requests: 7, bytes: 70 })
    await recordTraffic(trx, customers.x, { at: hoursAgo(24 * 8), requests: 999, bytes: 999 })
  })
  expect((await usage(staffToken)).traffic).toEqual({
    last24h: { requests: 107, bytes: 1070 },
    last7d: { requests: 117, bytes: 1120 },
  })
  expect((await usage(await tp.token({ customerId: customers.a }))).traffic.last7d).toEqual({
    requests: 110,
    bytes: 1050,
  })
})
