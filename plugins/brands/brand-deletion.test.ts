// DELETE /api/v1/brands/{id} as clients see it: an empty brand goes (204, then 404, audited); one that still has
// customers, staff, plans or webhook endpoints is refused with 409 brand_in_use naming them, and keeps everything;
// the default brand never goes.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import { billingPlugin } from '../billing/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { webhooksPlugin } from '../webhooks/index.ts'
import type { Brand } from './contract.ts'
import { brandsPlugin } from './index.ts'

let tp: TestPanel
let staffToken: string

async function newBrand(name: string): Promise<Brand> {
  const response = await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name } })
  expect(response.status).toBe(201)
  return (await response.json()) as Brand
}

const remove = (id: string, token = staffToken) => tp.request('DELETE', `/api/v1/brands/${id}`, { token })

async function status(path: string): Promise<number> {
  return (await tp.request('GET', path, { token: staffToken })).status
}

/** A brand's staff member and a token of theirs. */
async function staffOf(brand: Brand, email: string): Promise<string> {
  const user = await createTestUser(tp.panel.store.db, { email, staffRole: 'brand', brandId: brand.id })
  return tp.token({ user })
}

beforeAll(async () => {
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      billingPlugin(),
      webhooksPlugin({ resolve: async () => [{ address: '93.184.216.34', family: 4 }] }),
    ],
  })
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

describe('deleting a brand', () => {
  test('a brand nothing belongs to is deleted: 204, then 404, its host names free, audited as brand.delete', async () => {
    const brand = await newBrand('Gone Hosting')
    await tp.request('PATCH', `/api/v1/brands/${brand.id}`, {
      token: staffToken,
      body: { hostnames: ['panel.gone.example'] },
    })
    const response = await remove(brand.id)
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    expect(await status(`/api/v1/brands/${brand.id}`)).toBe(404)
    const branding = await tp.request('GET', '/api/v1/branding', { headers: { host: 'panel.gone.example' } })
    expect(((await branding.json()) as { brandId: string }).brandId).not.toBe(brand.id)
    // The host name is free for another brand.
    const other = await newBrand('Taker Hosting')
    const taken = await tp.request('PATCH', `/api/v1/brands/${other.id}`, {
      token: staffToken,
      body: { hostnames: ['panel.gone.example'] },
    })
    expect(taken.status).toBe(200)
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${brand.id}`, { token: staffToken })
    ).json()) as Page<{ action: string; details: Record<string, unknown> }>
    expect(audit.items.map((entry) => entry.action)).toEqual(['brand.delete', 'brand.update', 'brand.create'])
    expect(audit.items[0]?.details).toEqual({ name: 'Gone Hosting' })
    expect((await remove(brand.id)).status).toBe(404)
  })

  test('a brand with a customer is refused with 409 brand_in_use naming customers, and stays', async () => {
    const brand = await newBrand('With Customer')
    const customer = await tp.request('POST', '/api/v1/customers', {
      token: staffToken,
      body: { name: 'Shop', brandId: brand.id },
    })
    expect(customer.status).toBe(201)
    const body = await expectProblem(await remove(brand.id), 409, 'brand_in_use')
    expect(body.blockers).toEqual([{ name: 'customers', count: 1 }])
    expect(body.detail).toContain('customers (1)')
    expect(await status(`/api/v1/brands/${brand.id}`)).toBe(200)
  })

  test('a brand with staff, a plan and a webhook endpoint names each with its count', async () => {
    const brand = await newBrand('Busy Hosting')
    const brandToken = await staffOf(brand, 'staff@busy.example')
    await staffOf(brand, 'more-staff@busy.example')
    const plan = await tp.request('POST', '/api/v1/plans', {
      token: staffToken,
      body: { name: 'Small', brandId: brand.id },
    })
    expect(plan.status).toBe(201)
    const endpoint = await tp.request('POST', '/api/v1/webhooks', {
      token: brandToken,
      body: { url: 'https://hooks.busy.example/in', events: ['*'] },
    })
    expect(endpoint.status).toBe(201)
    const body = await expectProblem(await remove(brand.id), 409, 'brand_in_use')
    expect(body.blockers).toEqual([
      { name: 'staff', count: 2 },
      { name: 'plans', count: 1 },
      { name: 'webhooks', count: 1 },
    ])
    expect(await status(`/api/v1/brands/${brand.id}`)).toBe(200)
    expect(await status(`/api/v1/plans/${((await plan.json()) as { id: string }).id}`)).toBe(200)
    const audit = (await (
      await tp.request('GET', `/api/v1/audit?subject=${brand.id}`, { token: staffToken })
    ).json()) as Page<{ action: string }>
    expect(audit.items.map((entry) => entry.action)).not.toContain('brand.delete')
  })

  test('a brand whose only plan was deleted can go', async () => {
    const brand = await newBrand('Planned Hosting')
    const plan = (await (
      await tp.request('POST', '/api/v1/plans', {
        token: staffToken,
        body: { name: 'Once', brandId: brand.id },
      })
    ).json()) as { id: string }
    expect((await expectProblem(await remove(brand.id), 409, 'brand_in_use')).blockers).toEqual([
      { name: 'plans', count: 1 },
    ])
    expect((await tp.request('DELETE', `/api/v1/plans/${plan.id}`, { token: staffToken })).status).toBe(204)
    expect((await remove(brand.id)).status).toBe(204)
  })

  test('the default brand is never deleted: 409 default_brand', async () => {
    const brands = (await (
      await tp.request('GET', '/api/v1/brands', { token: staffToken })
    ).json()) as Page<Brand>
    const fallback = brands.items.find((brand) => brand.isDefault)
    await expectProblem(await remove(fallback?.id ?? ''), 409, 'default_brand')
    expect(await status(`/api/v1/brands/${fallback?.id}`)).toBe(200)
  })

  test('without brand:manage the deletion is 403; an unknown brand is 404, another brand’s to brand staff too', async () => {
    const brand = await newBrand('Kept Hosting')
    const reader = await tp.token({ scopes: ['brand:read'] })
    await expectProblem(await remove(brand.id, reader), 403, 'insufficient_scope')
    await expectProblem(await remove('brd_01J0000000000000000000000Z'), 404, 'not_found')
    const rival = await newBrand('Rival Hosting')
    const rivalToken = await staffOf(rival, 'staff@rival.example')
    await expectProblem(await remove(brand.id, rivalToken), 404, 'not_found')
    // Brand staff are their brand's staff, so their own brand is always in use.
    expect((await expectProblem(await remove(rival.id, rivalToken), 409, 'brand_in_use')).blockers).toEqual([
      { name: 'staff', count: 1 },
    ])
    expect(await status(`/api/v1/brands/${brand.id}`)).toBe(200)
  })
})
