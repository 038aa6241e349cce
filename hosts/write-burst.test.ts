// A burst of creates spread over two instances of one installation: every one succeeds. On PostgreSQL they run
// serializable and collide on the counters they share (the installation's, the brand's, the node's sites); the
// store runs the losers again, and the hot counters are spread over shards so that they seldom collide at all.

import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestPanel, type TestPanel } from './testing/index.ts'

const instances: TestPanel[] = []
afterAll(async () => {
  for (const instance of instances) await instance.panel.close()
})

const tally = (statuses: readonly number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => {
    counts[status] = (counts[status] ?? 0) + 1
    return counts
  }, {})

test('100 customers, then a site for each, created all at once across two instances: 100 and 100 created', async () => {
  const storePath = join(mkdtempSync(join(tmpdir(), 'plinth-burst-')), 'plinth.sqlite')
  instances.push(await createTestPanel({ storePath }), await createTestPanel({ storePath }))
  const [a, b] = instances as [TestPanel, TestPanel]
  const token = await a.token()
  const via = (index: number) => (index % 2 === 0 ? a : b)
  const customers = await Promise.all(
    Array.from({ length: 100 }, (_, index) =>
      via(index).request('POST', '/api/v1/customers', { token, body: { name: `Burst ${index}` } }),
    ),
  )
  expect(tally(customers.map((response) => response.status))).toEqual({ 201: 100 })
  const ids = await Promise.all(
    customers.map(async (response) => ((await response.json()) as { id: string }).id),
  )
  const sites = await Promise.all(
    ids.map((customerId, index) =>
      via(index + 1).request('POST', '/api/v1/sites', {
        token,
        body: { customerId, name: `Site ${index}`, type: 'wordpress', domain: `burst${index}.example.com` },
      }),
    ),
  )
  expect(tally(sites.map((response) => response.status))).toEqual({ 201: 100 })
  // The counters the burst shared add up.
  const usage = (await (await b.request('GET', '/api/v1/usage', { token })).json()) as Record<string, number>
  expect(usage).toMatchObject({ customers: 100, sites: 100 })
}, 60_000)
