// POST, GET and PATCH /api/v1/brands as clients see them: platform staff manage all, brand staff only their own.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import type { Brand } from './contract.ts'
import { brandsPlugin } from './index.ts'

let tp: TestPanel
let staffToken: string
let brandToken: string
let own: Brand
let other: Brand

async function createBrand(name: string): Promise<Brand> {
  const response = await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name } })
  expect(response.status).toBe(201)
  return (await response.json()) as Brand
}

async function listBrands(token: string): Promise<Brand[]> {
  const response = await tp.request('GET', '/api/v1/brands?limit=100', { token })
  expect(response.status).toBe(200)
  return [...((await response.json()) as Page<Brand>).items]
}

beforeAll(async () => {
  tp = await createTestPanel({ standard: false, plugins: [brandsPlugin()] })
  staffToken = await tp.token()
  own = await createBrand('Own Hosting')
  other = await createBrand('Other Hosting')
  const brandStaff = await createTestUser(tp.panel.store.db, {
    email: 'brand-staff@example.test',
    staffRole: 'brand',
    brandId: own.id,
  })
  brandToken = await tp.token({ user: brandStaff })
})
afterAll(() => tp.panel.close())

describe('platform staff', () => {
  test('a fresh installation has one default brand, with the default theme and no host names', async () => {
    const defaults = (await listBrands(staffToken)).filter((brand) => brand.isDefault)
    expect(defaults).toEqual([
      {
        id: expect.stringMatching(/^brd_[0-9A-Z]{26}$/),
        name: 'Default',
        isDefault: true,
        theme: { logo: null, primaryColor: '#1d4ed8', accentColor: '#0f766e' },
        hostnames: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ])
  })

  test('create a brand: 201, Location, not the default, the default theme, and it reads back', async () => {
    const response = await tp.request('POST', '/api/v1/brands', {
      token: staffToken,
      body: { name: '  Reseller One  ' },
    })
    expect(response.status).toBe(201)
    const brand = (await response.json()) as Brand
    expect(brand).toEqual({
      id: expect.stringMatching(/^brd_[0-9A-Z]{26}$/),
      name: 'Reseller One',
      isDefault: false,
      theme: { logo: null, primaryColor: '#1d4ed8', accentColor: '#0f766e' },
      hostnames: [],
      createdAt: expect.any(String),
      updatedAt: brand.createdAt,
    })
    expect(response.headers.get('location')).toBe(`/api/v1/brands/${brand.id}`)
    const read = await tp.request('GET', `/api/v1/brands/${brand.id}`, { token: staffToken })
    expect(await read.json()).toEqual(brand)
    expect((await listBrands(staffToken)).map((item) => item.id)).toContain(brand.id)
  })

  test('a name another brand has is 409 brand_name_taken', async () => {
    // Case does not make a different brand: "other hosting" beside "Other Hosting" would confuse every list.
    for (const name of ['Other Hosting', ' Other Hosting ', 'other HOSTING', 'Default']) {
      const response = await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name } })
      await expectProblem(response, 409, 'brand_name_taken')
    }
  })

  test('a blank name is 422 too_short at body.name', async () => {
    const response = await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name: '   ' } })
    await expectFieldProblem(response, 422, 'validation_failed', 'body.name', 'too_short')
  })

  test('rename any brand; another brand’s name is 409 brand_name_taken, its own name is fine', async () => {
    const brand = await createBrand('Rename Me')
    const renamed = await tp.request('PATCH', `/api/v1/brands/${brand.id}`, {
      token: staffToken,
      body: { name: 'Renamed' },
    })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toMatchObject({ id: brand.id, name: 'Renamed' })
    const taken = await tp.request('PATCH', `/api/v1/brands/${brand.id}`, {
      token: staffToken,
      body: { name: 'Other Hosting' },
    })
    await expectProblem(taken, 409, 'brand_name_taken')
    const same = await tp.request('PATCH', `/api/v1/brands/${brand.id}`, {
      token: staffToken,
      body: { name: 'Renamed' },
    })
    expect(same.status).toBe(200)
  })

  test('a token limited to one customer is refused the brands area with 403 staff_only', async () => {
    const limited = await tp.token({ customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' })
    await expectProblem(await tp.request('GET', '/api/v1/brands', { token: limited }), 403, 'staff_only')
    const create = await tp.request('POST', '/api/v1/brands', { token: limited, body: { name: 'Sneaky' } })
    await expectProblem(create, 403, 'staff_only')
  })

  test('an unknown or malformed brand id is 404', async () => {
    for (const id of ['brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', 'nothing']) {
      await expectProblem(
        await tp.request('GET', `/api/v1/brands/${id}`, { token: staffToken }),
        404,
        'not_found',
      )
    }
  })
})

describe('brand staff', () => {
  test('cannot create brands: 403 insufficient_scope naming brand:create', async () => {
    const response = await tp.request('POST', '/api/v1/brands', {
      token: brandToken,
      body: { name: 'Mine Too' },
    })
    const body = await expectProblem(response, 403, 'insufficient_scope')
    expect(body.scope).toBe('brand:create')
    expect(response.headers.get('www-authenticate')).toContain('scope="brand:create"')
  })

  test('list only their own brand', async () => {
    expect((await listBrands(brandToken)).map((brand) => brand.id)).toEqual([own.id])
  })

  test('read their own brand, and get 404 for another', async () => {
    const read = await tp.request('GET', `/api/v1/brands/${own.id}`, { token: brandToken })
    expect(read.status).toBe(200)
    expect(((await read.json()) as Brand).id).toBe(own.id)
    const response = await tp.request('GET', `/api/v1/brands/${other.id}`, { token: brandToken })
    await expectProblem(response, 404, 'not_found')
  })

  test('rename their own brand', async () => {
    const response = await tp.request('PATCH', `/api/v1/brands/${own.id}`, {
      token: brandToken,
      body: { name: 'Own Hosting Ltd' },
    })
    expect(response.status).toBe(200)
    const brand = (await response.json()) as Brand
    expect(brand).toMatchObject({ id: own.id, name: 'Own Hosting Ltd', isDefault: false })
    expect(Date.parse(brand.updatedAt)).toBeGreaterThanOrEqual(Date.parse(own.updatedAt))
    const read = await tp.request('GET', `/api/v1/brands/${own.id}`, { token: brandToken })
    expect(await read.json()).toEqual(brand)
  })

  test('renaming another brand is 404, and it keeps its name', async () => {
    const response = await tp.request('PATCH', `/api/v1/brands/${other.id}`, {
      token: brandToken,
      body: { name: 'Taken Over' },
    })
    await expectProblem(response, 404, 'not_found')
    const read = await tp.request('GET', `/api/v1/brands/${other.id}`, { token: staffToken })
    expect(((await read.json()) as Brand).name).toBe('Other Hosting')
  })
})
