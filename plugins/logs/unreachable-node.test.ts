// A site whose node cannot answer: its logs are 503, `node_unavailable` when its agent is away, `logs_unavailable`
// when the node fails the read; the node's own words (its paths, its addresses) stay in the panel's log.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import { createTestPanel, expectProblem, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { type NodeDriver, NodeUnreachable, nodeDrivers } from '../nodes/contract.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { logsPlugin } from './index.ts'

/** A node whose calls fail as `failure` says; site changes go through. */
const driver = (name: string, failure: () => Error): NodeDriver => ({
  name,
  description: 'A node whose calls fail (tests only).',
  send: async (_node, command) => {
    if (command.operation === 'call') throw failure()
    return undefined as never
  },
})

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: '/nonexistent/unused', local: false }),
      definePlugin({
        name: 'failing-nodes',
        version: '0.1.0',
        description: 'Adds nodes whose calls fail.',
        requires: ['nodes'],
        setup: (context) => {
          context.extensionPoint(nodeDrivers).add(driver('away', () => new NodeUnreachable('agent away')))
          context
            .extensionPoint(nodeDrivers)
            .add(driver('broken', () => new Error('EIO reading /srv/plinth-agent/sites/x/logs/access.log')))
        },
      }),
      sitesPlugin(),
      logsPlugin(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
})
afterAll(() => tp.panel.close())

const api = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })

/** A site on a new node of `driverName`, the only one taking sites. */
async function siteOn(driverName: string): Promise<string> {
  const nodes = (await (await api('GET', '/nodes')).json()) as { items: { id: string }[] }
  for (const node of nodes.items) await api('PATCH', `/nodes/${node.id}`, { status: 'draining' })
  expect(
    (await api('POST', '/nodes', { name: driverName, driver: driverName, hostname: '10.0.0.9' })).status,
  ).toBe(201)
  const customer = (await (await api('POST', '/customers', { name: `${driverName} Co` })).json()) as {
    id: string
  }
  const site = (await (
    await api('POST', '/sites', {
      customerId: customer.id,
      name: driverName,
      type: 'wordpress',
      domain: `${driverName}.logs.test`,
    })
  ).json()) as { id: string }
  await waitFor('the site active', async () => {
    const now = (await (await api('GET', `/sites/${site.id}`)).json()) as { status: string }
    if (now.status !== 'active') await Bun.sleep(20)
    return now.status === 'active'
  })
  return site.id
}

test('a node that fails the read is 503 logs_unavailable, its reason kept from the client', async () => {
  const siteId = await siteOn('broken')
  const response = await api('GET', `/sites/${siteId}/logs/access`)
  const body = await expectProblem(response, 503, 'logs_unavailable')
  expect(JSON.stringify(body)).not.toContain('/srv/plinth-agent')
})

test('a node whose agent is away is 503 node_unavailable', async () => {
  const siteId = await siteOn('away')
  await expectProblem(await api('GET', `/sites/${siteId}/logs/error`), 503, 'node_unavailable')
})
