// A WordPress site is never made a placeholder page on a node that would serve: placed while its node ran WordPress,
// then provisioned after the node stopped offering it (Debian's package removed), the site fails with
// `wordpress_unavailable` and the node is sent nothing, rather than read `active` with no WordPress, no database and
// an administrator password that opens nothing. The test plays the node's agent.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import {
  createTestPanel,
  nodeWithPlayedAgent,
  type playAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'

let tp: TestPanel
let token: string
let agent: ReturnType<typeof playAgent>

const node = (overrides: Record<string, unknown>) => ({
  nginx: '1.22.1',
  php: '8.2.26',
  unixUsers: true,
  mode: 'serving',
  applications: {},
  services: {
    database: { engine: 'mariadb', running: true, host: '127.0.0.1', port: 3307, version: '10.11.6' },
  },
  missing: [],
  setup: 'npm run agent -- setup',
  readiness: { ready: true, reasons: [] },
  ...overrides,
})

beforeAll(async () => {
  // Not started yet: the site's job runs once the node changed its mind.
  tp = await createTestPanel({ jobs: { pollIntervalMs: 10, retryBaseMs: 100, retryMaxMs: 200 } })
  token = await tp.token()
  agent = (await nodeWithPlayedAgent(tp, token, 'fra-9')).agent
})
afterAll(() => tp.panel.close())

test('a WordPress site whose node no longer runs WordPress fails with wordpress_unavailable, never a placeholder', async () => {
  await agent.poll(node({ applications: { wordpress: '6.1.9' } }))
  const customer = await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Acme' } })
  const customerId = ((await customer.json()) as { id: string }).id
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name: 'Blog', type: 'wordpress', domain: 'blog.example.test' },
  })
  expect(created.status).toBe(201)
  const site = (await created.json()) as Site
  await agent.poll(node({ missing: [{ what: 'Debian’s wordpress package', for: 'wordpress sites' }] }))
  tp.panel.start()
  const failed = await waitFor(
    'the site to fail',
    async () => {
      const read = (await (await tp.request('GET', `/api/v1/sites/${site.id}`, { token })).json()) as Site
      if (read.status === 'failed') return read
      await Bun.sleep(20)
      return null
    },
    10_000,
  )
  expect(failed.error?.code).toBe('wordpress_unavailable')
  expect(failed.error?.message).toContain('Debian’s wordpress package')
  // The site's error is its customer's to read: it names no node of the provider's.
  expect(failed.error?.message).not.toContain('fra-9')
  // The node was asked for nothing: no placeholder laid out.
  expect((await agent.poll()).filter((command) => command.subject === site.id)).toEqual([])
})
