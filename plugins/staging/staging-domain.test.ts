// The installation's staging domain (`STAGING_DOMAIN`) on both stores: its names are staging copies' only. A
// customer cannot name a site under it (422 `domain_reserved`), by creating one or changing a domain, so no one
// squats another customer's default staging name or hosts what they like on the provider's wildcard record; a
// staging copy takes its default name there.

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestPanel, expectFieldProblem, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import { sitesPlugin } from '../sites/index.ts'
import { stagingPlugin } from './index.ts'

const stagingDomain = 'stg.provider.test'
let tp: TestPanel
let token: string
let customerId: string

const call = (method: string, path: string, body?: unknown) =>
  tp.request(method, `/api/v1${path}`, { token, ...(body === undefined ? {} : { body }) })

beforeAll(async () => {
  tp = await createTestPanel({
    plugins: [
      sitesPlugin({ wordpress: false, pluginDomains: [stagingDomain] }),
      stagingPlugin({ domain: stagingDomain }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
  })
  tp.panel.start()
  token = await tp.token()
  customerId = ((await (await call('POST', '/customers', { name: 'Stager' })).json()) as { id: string }).id
})
afterAll(() => tp.panel.close())

test('names under the staging domain are refused to sites a customer names, and taken by staging copies', async () => {
  const site = { customerId, name: 'shop', type: 'wordpress' }
  for (const domain of [`staging-shop.${stagingDomain}`, stagingDomain, `a.b.${stagingDomain}`])
    await expectFieldProblem(
      await call('POST', '/sites', { ...site, domain }),
      422,
      'domain_reserved',
      'body.domain',
    )
  const created = await call('POST', '/sites', { ...site, domain: 'shop.customer.test' })
  expect(created.status).toBe(201)
  const { id, handle } = (await created.json()) as { id: string; handle: string }
  await waitFor('the site active', async () => {
    const now = (await (await call('GET', `/sites/${id}`)).json()) as { status: string }
    if (now.status !== 'active') await Bun.sleep(20)
    return now.status === 'active'
  })
  await expectFieldProblem(
    await call('PATCH', `/sites/${id}`, { domain: `staging-other.${stagingDomain}` }),
    422,
    'domain_reserved',
    'body.domain',
  )
  const staged = await call('POST', `/sites/${id}/staging`, {})
  expect(staged.status).toBe(202)
  expect(((await staged.json()) as { site: { domain: string } }).site.domain).toBe(
    `staging-${handle}.${stagingDomain}`,
  )
})
