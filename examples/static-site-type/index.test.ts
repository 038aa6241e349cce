// The example plugin works from outside: mounted beside the standard plugins, `static` sites can be created.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brandsPlugin } from '../../plugins/brands/index.ts'
import { customersPlugin } from '../../plugins/customers/index.ts'
import { nodesPlugin } from '../../plugins/nodes/index.ts'
import { sitesPlugin } from '../../plugins/sites/index.ts'
import { staticSiteTypePlugin } from './index.ts'
import { createTestPanel, type TestPanel } from '../../hosts/testing/index.ts'

let tp: TestPanel
beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      staticSiteTypePlugin(),
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({ dataDir: mkdtempSync(join(tmpdir(), 'plinth-test-')) }),
      sitesPlugin(),
    ],
  })
})
afterAll(() => tp.panel.close())

test('a static site can be created once the example plugin is mounted', async () => {
  const token = await tp.token()
  const customer = (await (
    await tp.request('POST', '/api/v1/customers', { token, body: { name: 'C' } })
  ).json()) as { id: string }
  const response = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId: customer.id, name: 'Docs', type: 'static', domain: 'docs.example.com' },
  })
  expect(response.status).toBe(201)
  expect(((await response.json()) as { type: string }).type).toBe('static')
})
