// A brand's staff and the backups API: the platform's areas (targets, a site's own policy, the overdue list) are
// refused them (their scopes are platform staff's), and another brand's site's backups are 404 as for customers.
// On both stores; no backup is taken (refusals only).

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestPanel, createTestUser, expectProblem, type TestPanel } from '../../hosts/testing/index.ts'

let tp: TestPanel
let token: string
let brandToken: string
let otherBrandSite: string
let ownBrandSite: string

async function siteOf(brandId: string | undefined, name: string): Promise<string> {
  const customer = await tp.request('POST', '/api/v1/customers', {
    token,
    body: { name, ...(brandId ? { brandId } : {}) },
  })
  const customerId = ((await customer.json()) as { id: string }).id
  const created = await tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name, type: 'wordpress', domain: `${name}.brand-staff.test` },
  })
  expect(created.status).toBe(201)
  return ((await created.json()) as { id: string }).id
}

beforeAll(async () => {
  tp = await createTestPanel()
  token = await tp.token()
  const brand = await tp.request('POST', '/api/v1/brands', { token, body: { name: 'Reseller' } })
  const brandId = ((await brand.json()) as { id: string }).id
  const staff = await createTestUser(tp.panel.store.db, {
    email: 'reseller-staff@brand-staff.test',
    staffRole: 'brand',
    brandId,
  })
  brandToken = await tp.token({ user: staff })
  const suffix = crypto.randomUUID().slice(0, 6)
  otherBrandSite = await siteOf(undefined, `platform-${suffix}`)
  ownBrandSite = await siteOf(brandId, `reseller-${suffix}`)
})
afterAll(() => tp.panel.close())

test('a brand’s staff are refused the platform’s backup areas with insufficient_scope', async () => {
  const policy = { schedule: 'daily', keepDaily: 1, keepWeekly: 0, keepMonthly: 0, targetId: null }
  for (const [method, path, body] of [
    ['GET', '/api/v1/backup-targets', undefined],
    ['POST', '/api/v1/backup-targets', { name: 'Probe', kind: 'rest', url: 'http://127.0.0.1:1/' }],
    ['GET', '/api/v1/backups/overdue', undefined],
    ['PUT', `/api/v1/sites/${ownBrandSite}/backup-policy`, policy],
    ['DELETE', `/api/v1/sites/${ownBrandSite}/backup-policy`, undefined],
  ] as const)
    await expectProblem(
      await tp.request(method, path, { token: brandToken, body }),
      403,
      'insufficient_scope',
    )
})

test('a brand’s staff see their brand’s sites’ backups, and another brand’s are 404', async () => {
  expect(
    (await tp.request('GET', `/api/v1/sites/${ownBrandSite}/backups`, { token: brandToken })).status,
  ).toBe(200)
  await expectProblem(
    await tp.request('GET', `/api/v1/sites/${otherBrandSite}/backups`, { token: brandToken }),
    404,
    'not_found',
  )
  await expectProblem(
    await tp.request('POST', `/api/v1/sites/${otherBrandSite}/backups`, { token: brandToken }),
    404,
    'not_found',
  )
})
