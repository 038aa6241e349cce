// A site whose node cannot be reached (its agent gone, its network down): file operations answer 503
// node_unavailable at once, saying nothing was done, never a 500 or a hang.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { definePlugin } from '../../core/index.ts'
import { createTestPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { type NodeDriver, NodeRefusal, nodeDrivers } from '../nodes/contract.ts'
import { nodesPlugin } from '../nodes/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { filesPlugin } from './index.ts'

/** A node that takes sites but whose link for calls is down. */
const unreachable: NodeDriver = {
  name: 'unreachable',
  description: 'A node whose calls never get through (tests only).',
  // Site changes go through; a call never does.
  send: async (_node, command) => {
    if (command.operation === 'call') throw new Error('connect ECONNREFUSED 10.0.0.7:443')
    return undefined as never
  },
}

/** A node whose files service fails in a way of its own (a tool missing), saying where on the node. */
const failing: NodeDriver = {
  ...unreachable,
  name: 'failing',
  description: 'A node whose files service fails (tests only).',
  send: async (_node, command) => {
    if (command.operation !== 'call') return undefined as never
    throw new NodeRefusal('file_operation_failed', 'The node could not carry out the file operation', {
      reason: 'zip: not found at /srv/plinth-agent/sites/site_x/htdocs',
    })
  },
}

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
        name: 'unreachable-node',
        version: '0.1.0',
        description: 'Adds the unreachable driver.',
        requires: ['nodes'],
        setup: (context) => {
          context.extensionPoint(nodeDrivers).add(unreachable)
          context.extensionPoint(nodeDrivers).add(failing)
        },
      }),
      sitesPlugin(),
      filesPlugin(),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
})
afterAll(() => tp.panel.close())

const api = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })

test('a file operation on a site whose node cannot be reached is 503 node_unavailable', async () => {
  expect(
    (await api('POST', '/nodes', { name: 'far', driver: 'unreachable', hostname: '10.0.0.7' })).status,
  ).toBe(201)
  const customer = (await (await api('POST', '/customers', { name: 'Far Co' })).json()) as { id: string }
  const site = (await (
    await api('POST', '/sites', {
      customerId: customer.id,
      name: 'far',
      type: 'wordpress',
      domain: 'far.example.com',
    })
  ).json()) as { id: string }
  await waitFor('the site active', async () => {
    const now = (await (await api('GET', `/sites/${site.id}`)).json()) as { status: string }
    if (now.status !== 'active') await Bun.sleep(50)
    return now.status === 'active'
  })
  const listing = await api('GET', `/sites/${site.id}/files?path=/htdocs`)
  expect(listing.status).toBe(503)
  const body = (await listing.json()) as { code: string; detail: string }
  expect(body.code).toBe('node_unavailable')
  // The node's own error (an address of the provider's network) is logged, not shown.
  expect(body.detail).not.toContain('10.0.0.7')
})

test('a node that fails an operation of its own is 502 file_operation_failed, its reason kept from the client', async () => {
  const node = (await (
    await api('POST', '/nodes', { name: 'flaky', driver: 'failing', hostname: '10.0.0.8' })
  ).json()) as {
    id: string
  }
  // The unreachable node takes no more sites: this one goes to the failing node.
  const nodes = (await (await api('GET', '/nodes')).json()) as { items: { id: string; name: string }[] }
  const far = nodes.items.find((each) => each.name === 'far')
  expect((await api('PATCH', `/nodes/${far?.id}`, { status: 'draining' })).status).toBe(200)
  const customer = (await (await api('POST', '/customers', { name: 'Flaky Co' })).json()) as { id: string }
  const site = (await (
    await api('POST', '/sites', {
      customerId: customer.id,
      name: 'flaky',
      type: 'wordpress',
      domain: 'flaky.example.com',
    })
  ).json()) as { id: string; nodeId: string }
  expect(site.nodeId).toBe(node.id)
  await waitFor('the site active', async () => {
    const now = (await (await api('GET', `/sites/${site.id}`)).json()) as { status: string }
    if (now.status !== 'active') await Bun.sleep(50)
    return now.status === 'active'
  })
  const listing = await api('GET', `/sites/${site.id}/files?path=/htdocs`)
  expect(listing.status).toBe(502)
  const text = await listing.text()
  expect(JSON.parse(text).code).toBe('file_operation_failed')
  expect(text).not.toContain('/srv/plinth-agent')
})
