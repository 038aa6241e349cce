// GET /api/v1/usage on the standard installation: counts and traffic (totals, hourly and daily series) within the
// caller's view, kept as rows change.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { NodesTables } from '../plugins/nodes/migrations.ts'
import { hourOf, type RecentTraffic, type TrafficBucket } from '../plugins/nodes/traffic.ts'
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

const hourMs = 3_600_000
const dayMs = 24 * hourMs

/** The usage without the traffic series, whose buckets move on with the clock. */
function withoutSeries({ traffic, ...rest }: Usage) {
  return { ...rest, traffic: { last24h: traffic.last24h, last7d: traffic.last7d } }
}

/** The `local` node, which runs the sites, and a fresh agent token for it (replacing the previous one). */
async function localNode(): Promise<{ id: string; agentToken: string }> {
  const nodes = await tp.request('GET', '/api/v1/nodes', { token: staffToken })
  const local = ((await nodes.json()) as Page<{ id: string; name: string }>).items.find(
    (node) => node.name === 'local',
  )
  expect(local).toBeDefined()
  const id = local?.id ?? ''
  const rotated = await tp.request('POST', `/api/v1/nodes/${id}/rotate-agent-token`, { token: staffToken })
  expect(rotated.status).toBe(200)
  return { id, agentToken: ((await rotated.json()) as { agentToken: string }).agentToken }
}

/** A traffic sample as the metrics route takes it. */
interface Sample {
  readonly siteId: string | undefined
  readonly requests: number
  readonly bytes: number
  readonly at: string
}

async function report(node: { id: string; agentToken: string }, samples: readonly Sample[]): Promise<void> {
  const reported = await tp.request('POST', `/api/v1/nodes/${node.id}/metrics`, {
    headers: { authorization: `Bearer ${node.agentToken}` },
    body: { samples },
  })
  expect(reported.status).toBe(200)
}

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

test('narrowing to a customer that does not exist is 404 for platform staff too, as the document says', async () => {
  // Outside clients (Prism against the served document) found it answered platform staff 200 with zeros.
  const unknown = 'cus_01M80QJY0XWSRMQ50BB8KAM10K'
  const response = await tp.request('GET', `/api/v1/usage?customerId=${unknown}`, { token: staffToken })
  expect(response.status).toBe(404)
  expect(((await response.json()) as { code: string }).code).toBe('not_found')
  const known = await tp.request('GET', `/api/v1/usage?customerId=${customers.a}`, { token: staffToken })
  expect(known.status).toBe(200)
  expect(await known.json()).toMatchObject({ customers: 1, sites: 2 })
})

test('a refused create changes no count', async () => {
  const before = await usage(staffToken)
  const refused = await tp.request('POST', '/api/v1/sites', {
    token: staffToken,
    body: { customerId: customers.a, name: 'Dup', type: 'wordpress', domain: 's0.example.com' },
  })
  expect(refused.status).toBe(409)
  expect(withoutSeries(await usage(staffToken))).toEqual(withoutSeries(before))
})

test('recent traffic sums what nodes reported in the last 24 hours and 7 days', async () => {
  const local = await localNode()
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * hourMs)
  const sample = (siteId: string | undefined, hours: number, requests: number, bytes: number) => ({
    siteId,
    requests,
    bytes,
    at: hoursAgo(hours).toISOString(),
  })
  await report(local, [
    sample(sites.a[0], 1, 100, 1000),
    sample(sites.a[1], 30, 10, 50),
    sample(sites.x[0], 2, 7, 70),
  ])
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
  expect((await usage(staffToken)).traffic).toMatchObject({
    last24h: { requests: 107, bytes: 1070 },
    last7d: { requests: 117, bytes: 1120 },
  })
  expect((await usage(await tp.token({ customerId: customers.a }))).traffic.last7d).toEqual({
    requests: 110,
    bytes: 1050,
  })
})

/** What buckets starting at `starts`, each `length` ms long, must hold of `samples`: each sample in the one its time is in. */
function expectedBuckets(
  starts: readonly string[],
  length: number,
  samples: readonly Sample[],
): TrafficBucket[] {
  return starts.map((start) => {
    const from = Date.parse(start)
    const inside = samples.filter(
      (sample) => Date.parse(sample.at) >= from && Date.parse(sample.at) < from + length,
    )
    return {
      start,
      requests: inside.reduce((sum, sample) => sum + sample.requests, 0),
      bytes: inside.reduce((sum, sample) => sum + sample.bytes, 0),
    }
  })
}

/**
 * Checks one answer's series against the samples: the bucket starts come from the answer (the panel's clock), so
 * the expectations hold whenever the test runs, an hour or midnight passing meanwhile included.
 */
function expectSeries(traffic: RecentTraffic, samples: readonly Sample[], readFrom: number, readTo: number) {
  const { hourly, daily } = traffic
  expect(hourly).toHaveLength(24)
  expect(daily).toHaveLength(7)
  // The last hour is the current one, the last day today, each as the panel read its clock during the request.
  const currentHour = Date.parse(hourly[23]?.start ?? '')
  expect(currentHour).toBeGreaterThan(readFrom - hourMs)
  expect(currentHour).toBeLessThanOrEqual(readTo)
  expect(currentHour % hourMs).toBe(0)
  expect(Date.parse(daily[6]?.start ?? '')).toBe(currentHour - (currentHour % dayMs))
  // Oldest first, contiguous, in whole UTC hours and days.
  for (const [i, bucket] of hourly.entries())
    expect(bucket.start).toBe(new Date(currentHour - (23 - i) * hourMs).toISOString())
  for (const [i, bucket] of daily.entries())
    expect(bucket.start).toBe(new Date(currentHour - (currentHour % dayMs) - (6 - i) * dayMs).toISOString())
  expect(hourly).toEqual(
    expectedBuckets(
      hourly.map((bucket) => bucket.start),
      hourMs,
      samples,
    ),
  )
  expect(daily).toEqual(
    expectedBuckets(
      daily.map((bucket) => bucket.start),
      dayMs,
      samples,
    ),
  )
  // last24h covers the same 24 whole hours as `hourly`.
  expect(traffic.last24h).toEqual({
    requests: hourly.reduce((sum, bucket) => sum + bucket.requests, 0),
    bytes: hourly.reduce((sum, bucket) => sum + bucket.bytes, 0),
  })
}

test('the hourly and daily series put each reported sample in the bucket of its hour and day, zeros elsewhere, within the caller’s view', async () => {
  // Two customers of their own, so traffic of the tests above is in neither view.
  const mine = await post('/api/v1/customers', { name: 'Charted' })
  const other = await post('/api/v1/customers', { name: 'Other' })
  const site = (customerId: string, n: number) =>
    post('/api/v1/sites', { customerId, name: `C${n}`, type: 'wordpress', domain: `c${n}.example.com` })
  const [mySite, myOtherSite, otherSite] = [await site(mine, 1), await site(mine, 2), await site(other, 3)]
  const myToken = await tp.token({ customerId: mine })
  const member = await createTestUser(tp.panel.store.db, { email: 'm@charted.example', staffRole: null })
  const joined = await tp.request('POST', `/api/v1/customers/${mine}/members`, {
    token: staffToken,
    body: { email: member.email, role: 'developer' },
  })
  expect(joined.status).toBe(201)
  const memberToken = await tp.token({ user: member })

  const empty = (await usage(myToken)).traffic
  expect(empty.hourly.every((bucket) => bucket.requests === 0 && bucket.bytes === 0)).toBe(true)
  expect(empty.daily.every((bucket) => bucket.requests === 0 && bucket.bytes === 0)).toBe(true)
  expect(empty.last24h).toEqual({ requests: 0, bytes: 0 })
  expect(empty.last7d).toEqual({ requests: 0, bytes: 0 })

  // Times relative to the panel's current hour and day, well inside their buckets and the windows, and never ahead.
  const hour = Date.parse(empty.hourly[23]?.start ?? '')
  const today = Date.parse(empty.daily[6]?.start ?? '')
  const at = (ms: number) => new Date(Math.min(ms, Date.now())).toISOString()
  const samples: Sample[] = [
    { siteId: mySite, requests: 1, bytes: 10, at: at(Date.now()) },
    { siteId: mySite, requests: 2, bytes: 20, at: at(hour - hourMs + 10 * 60_000) },
    { siteId: myOtherSite, requests: 4, bytes: 40, at: at(hour - hourMs + 50 * 60_000) },
    { siteId: mySite, requests: 8, bytes: 80, at: at(hour - 5 * hourMs + 59 * 60_000) },
    { siteId: mySite, requests: 16, bytes: 160, at: at(hour - 22 * hourMs + 1) },
    { siteId: mySite, requests: 32, bytes: 320, at: at(today - 3 * dayMs + 12 * hourMs) },
    { siteId: myOtherSite, requests: 64, bytes: 640, at: at(today - 6 * dayMs + 30 * 60_000) },
  ]
  // Another customer's traffic, in the same hours: in no view of mine.
  const others: Sample[] = samples.map((sample) => ({
    ...sample,
    siteId: otherSite,
    requests: 1000,
    bytes: 1000,
  }))
  const node = await localNode()
  await report(node, [...samples, ...others])
  // The last hour of the day before the first `daily` one: in last7d's 168 hours unless the current hour is 23:00
  // UTC, when the metrics route would refuse a sample of it (more than 7 days ago); so stored as the plugin keeps it.
  const beforeFirstDay = today - 6 * dayMs - hourMs
  await tp.panel.store.db
    .withTables<NodesTables>()
    .insertInto('node_traffic')
    .values(
      ['all', `customer:${mine}`].map((scope_key) => ({
        scope_key,
        hour: hourOf(new Date(beforeFirstDay)),
        requests: 128,
        bytes: 1280,
      })),
    )
    .execute()

  // A customer-limited token, a member of the customer, and platform staff narrowing to it: the same traffic.
  for (const [token, query] of [
    [myToken, ''],
    [memberToken, ''],
    [staffToken, `?customerId=${mine}`],
  ]) {
    const readFrom = Date.now()
    const response = await tp.request('GET', `/api/v1/usage${query}`, { token })
    const readTo = Date.now()
    expect(response.status).toBe(200)
    const { traffic } = (await response.json()) as Usage
    expectSeries(traffic, samples, readFrom, readTo)
    const { hourly, daily } = traffic
    // Most buckets are empty, and say so with zeros.
    expect(
      hourly.filter((bucket) => bucket.requests === 0 && bucket.bytes === 0).length,
    ).toBeGreaterThanOrEqual(19)
    expect(
      daily.filter((bucket) => bucket.requests === 0 && bucket.bytes === 0).length,
    ).toBeGreaterThanOrEqual(3)
    // last7d's 168 hours start up to 23 hours before the first day: the sum of `daily` and those hours.
    const currentHour = Date.parse(hourly[23]?.start ?? '')
    const weekStart = currentHour - 167 * hourMs
    const extra = beforeFirstDay >= weekStart && beforeFirstDay < Date.parse(daily[0]?.start ?? '') ? 128 : 0
    expect(traffic.last7d).toEqual({
      requests: daily.reduce((sum, bucket) => sum + bucket.requests, 0) + extra,
      bytes: daily.reduce((sum, bucket) => sum + bucket.bytes, 0) + extra * 10,
    })
    if (currentHour === hour) {
      // No hour passed since the samples were dated: each is where the test put it.
      const requests = Array<number>(24).fill(0)
      Object.assign(requests, { 1: 16, 18: 8, 22: 2 + 4, 23: 1 })
      expect(hourly.map((bucket) => bucket.requests)).toEqual(requests)
      expect(daily[0]?.requests).toBe(64)
      expect(daily[3]?.requests).toBe(32)
      expect(traffic.last24h).toEqual({ requests: 31, bytes: 310 })
    }
  }
  // The other customer's traffic was recorded: it is in its own view.
  expect((await usage(await tp.token({ customerId: other }))).traffic.last7d.requests).toBeGreaterThanOrEqual(
    6000,
  )
})
