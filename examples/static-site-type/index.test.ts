// The example plugin works from outside: mounted beside the standard plugins (whose own `static` type it leaves
// alone), `html` sites can be created.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel } from '../../hosts/testing/index.ts'
import { staticSiteTypePlugin } from './index.ts'

let tp: TestPanel
beforeAll(async () => {
  tp = await createTestPanel({ plugins: [staticSiteTypePlugin()] })
})
afterAll(() => tp.panel.close())

test('an html site can be created once the example plugin is mounted', async () => {
  const token = await tp.token()
  const customer = (await (
    await tp.request('POST', '/api/v1/customers', { token, body: { name: 'C' } })
  ).json()) as { id: string }
  const response = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId: customer.id, name: 'Docs', type: 'html', domain: 'docs.example.com' },
  })
  expect(response.status).toBe(201)
  expect(((await response.json()) as { type: string }).type).toBe('html')
})
