// POST and GET /api/v1/customers as a client sees them.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import type { Brand } from '../brands/contract.ts'
import { brandsPlugin } from '../brands/index.ts'
import type { Customer } from './contract.ts'
import { customersPlugin } from './index.ts'

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createTestPanel({ standard: false, plugins: [brandsPlugin(), customersPlugin()] })
  token = await tp.token()
})
afterAll(() => tp.panel.close())

describe('customers', () => {
  test('staff create a customer: 201, Location, and it reads back', async () => {
    const response = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: '  Acme Ltd ', email: 'Ops@Acme.test' },
    })
    expect(response.status).toBe(201)
    const customer = (await response.json()) as Customer
    expect(customer).toMatchObject({ name: 'Acme Ltd', email: 'ops@acme.test', status: 'active' })
    expect(customer.id).toMatch(/^cus_[0-9A-Z]{26}$/)
    expect(response.headers.get('location')).toBe(`/api/v1/customers/${customer.id}`)
    expect(await (await tp.request('GET', `/api/v1/customers/${customer.id}`, { token })).json()).toEqual(
      customer,
    )
  })

  test('two customers may share a contact e-mail: uniqueness would tell any caller that another customer uses it', async () => {
    // Found by review: a 409 here let an owner probe other brands' customers by e-mail.
    const one = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'One', email: 'same@example.test' },
    })
    const two = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'Two', email: 'SAME@example.test' },
    })
    expect([one.status, two.status]).toEqual([201, 201])
    expect(((await two.json()) as { email: string }).email).toBe('same@example.test')
  })

  test('a blank name or a malformed e-mail is 422 with the field named', async () => {
    const blank = await tp.request('POST', '/api/v1/customers', { token, body: { name: ' ' } })
    expect(((await blank.json()) as { errors: unknown[] }).errors).toEqual([
      { location: 'body.name', message: 'must not be blank', code: 'too_short' },
    ])
    const email = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'X', email: 'not-an-email' },
    })
    expect(((await email.json()) as { errors: unknown[] }).errors).toEqual([
      expect.objectContaining({ location: 'body.email', code: 'invalid_format' }),
    ])
  })

  test('a token limited to a customer cannot create customers (staff area) and sees only its own', async () => {
    const own = (await (
      await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Own' } })
    ).json()) as Customer
    const other = (await (
      await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Other' } })
    ).json()) as Customer
    const limited = await tp.token({ customerId: own.id })
    const create = await tp.request('POST', '/api/v1/customers', { token: limited, body: { name: 'Sneaky' } })
    expect(create.status).toBe(403)
    expect(((await create.json()) as { code: string }).code).toBe('staff_only')
    expect((await tp.request('GET', `/api/v1/customers/${own.id}`, { token: limited })).status).toBe(200)
    expect((await tp.request('GET', `/api/v1/customers/${other.id}`, { token: limited })).status).toBe(404)
  })
})

async function createCustomer(as: string, body: Record<string, unknown>): Promise<Customer> {
  const response = await tp.request('POST', '/api/v1/customers', { token: as, body })
  expect(response.status).toBe(201)
  return (await response.json()) as Customer
}

async function listCustomers(as: string, query = ''): Promise<Page<Customer>> {
  const response = await tp.request('GET', `/api/v1/customers?limit=100${query}`, { token: as })
  expect(response.status).toBe(200)
  return (await response.json()) as Page<Customer>
}

describe('customers and brands', () => {
  let defaultBrand: string
  let secondBrand: string
  let brandToken: string

  beforeAll(async () => {
    const brands = await tp.request('GET', '/api/v1/brands', { token })
    defaultBrand =
      ((await brands.json()) as { items: Brand[] }).items.find((brand) => brand.isDefault)?.id ?? ''
    const created = await tp.request('POST', '/api/v1/brands', { token, body: { name: 'Second Brand' } })
    secondBrand = ((await created.json()) as Brand).id
    const brandStaff = await createTestUser(tp.panel.store.db, {
      email: 'second-staff@example.test',
      staffRole: 'brand',
      brandId: secondBrand,
    })
    brandToken = await tp.token({ user: brandStaff })
  })

  test('platform staff who name no brand create the customer in the default brand', async () => {
    expect(defaultBrand).toMatch(/^brd_/)
    expect((await createCustomer(token, { name: 'Defaulted' })).brandId).toBe(defaultBrand)
  })

  test('platform staff may name any brand; one that does not exist is 422 unknown_brand at body.brandId', async () => {
    expect((await createCustomer(token, { name: 'Placed', brandId: secondBrand })).brandId).toBe(secondBrand)
    const response = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'Lost', brandId: 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' },
    })
    await expectFieldProblem(response, 422, 'unknown_brand', 'body.brandId')
  })

  test('brand staff create customers in their own brand, named or not', async () => {
    expect((await createCustomer(brandToken, { name: 'Implicit' })).brandId).toBe(secondBrand)
    expect((await createCustomer(brandToken, { name: 'Explicit', brandId: secondBrand })).brandId).toBe(
      secondBrand,
    )
  })

  test('brand staff naming another brand is 422 unknown_brand at body.brandId', async () => {
    const response = await tp.request('POST', '/api/v1/customers', {
      token: brandToken,
      body: { name: 'Elsewhere', brandId: defaultBrand },
    })
    await expectFieldProblem(response, 422, 'unknown_brand', 'body.brandId')
  })

  test('brand staff list only their brand’s customers, and ?brandId of another brand lists none', async () => {
    const own = await createCustomer(brandToken, { name: 'Listed' })
    const all = await listCustomers(brandToken)
    expect(all.items.map((customer) => customer.id)).toContain(own.id)
    expect(all.items.every((customer) => customer.brandId === secondBrand)).toBe(true)
    expect((await listCustomers(brandToken, `&brandId=${defaultBrand}`)).items).toEqual([])
    expect((await listCustomers(brandToken, `&brandId=${secondBrand}`)).items).toEqual(all.items)
  })

  test('platform staff’s ?brandId narrows the list to that brand', async () => {
    const inSecond = await createCustomer(token, { name: 'Narrowed', brandId: secondBrand })
    const narrowed = await listCustomers(token, `&brandId=${secondBrand}`)
    expect(narrowed.items.map((customer) => customer.id)).toContain(inSecond.id)
    expect(narrowed.items.every((customer) => customer.brandId === secondBrand)).toBe(true)
    expect((await listCustomers(token)).items.length).toBeGreaterThan(narrowed.items.length)
  })

  test('brand staff get 404 for another brand’s customer, to read it or to change it', async () => {
    const foreign = await createCustomer(token, { name: 'Foreign' })
    const read = await tp.request('GET', `/api/v1/customers/${foreign.id}`, { token: brandToken })
    await expectProblem(read, 404, 'not_found')
    const change = await tp.request('PATCH', `/api/v1/customers/${foreign.id}`, {
      token: brandToken,
      body: { name: 'Mine Now' },
    })
    await expectProblem(change, 404, 'not_found')
    const after = await tp.request('GET', `/api/v1/customers/${foreign.id}`, { token })
    expect(((await after.json()) as Customer).name).toBe('Foreign')
  })
})

describe('changing a customer', () => {
  test('PATCH changes the name and contact e-mail, and null removes the e-mail', async () => {
    const customer = await createCustomer(token, { name: 'Before', email: 'before@example.test' })
    const response = await tp.request('PATCH', `/api/v1/customers/${customer.id}`, {
      token,
      body: { name: '  After  ', email: 'After@Example.test' },
    })
    expect(response.status).toBe(200)
    const changed = (await response.json()) as Customer
    expect(changed).toMatchObject({ id: customer.id, name: 'After', email: 'after@example.test' })
    expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(customer.updatedAt))
    expect(await (await tp.request('GET', `/api/v1/customers/${customer.id}`, { token })).json()).toEqual(
      changed,
    )

    const cleared = await tp.request('PATCH', `/api/v1/customers/${customer.id}`, {
      token,
      body: { email: null },
    })
    expect(await cleared.json()).toMatchObject({ name: 'After', email: null })
  })

  test('PATCH changes the contact e-mail, even to one another customer has, and null removes it', async () => {
    await createCustomer(token, { name: 'Holder', email: 'held@example.test' })
    const customer = await createCustomer(token, { name: 'Wanter', email: 'wanter@example.test' })
    const shared = await tp.request('PATCH', `/api/v1/customers/${customer.id}`, {
      token,
      body: { email: 'HELD@example.test' },
    })
    expect(shared.status).toBe(200)
    expect(((await shared.json()) as { email: string }).email).toBe('held@example.test')
    const removed = await tp.request('PATCH', `/api/v1/customers/${customer.id}`, {
      token,
      body: { email: null },
    })
    expect(((await removed.json()) as { email: string | null }).email).toBeNull()
  })

  test('PATCH with a blank name is 422 too_short at body.name', async () => {
    const customer = await createCustomer(token, { name: 'Named' })
    const response = await tp.request('PATCH', `/api/v1/customers/${customer.id}`, {
      token,
      body: { name: '   ' },
    })
    await expectFieldProblem(response, 422, 'validation_failed', 'body.name', 'too_short')
  })

  test('a developer may not read the customer record; a billing member reads it but cannot change it', async () => {
    const customer = await createCustomer(token, { name: 'Roles Co' })
    const user = await createTestUser(tp.panel.store.db, { email: 'roles@example.test', staffRole: null })
    const members = `/api/v1/customers/${customer.id}/members`
    const added = await tp.request('POST', members, { token, body: { email: user.email, role: 'developer' } })
    expect(added.status).toBe(201)
    const memberToken = await tp.token({ user })
    const read = () => tp.request('GET', `/api/v1/customers/${customer.id}`, { token: memberToken })
    expect((await expectProblem(await read(), 403, 'insufficient_scope')).scope).toBe('customer:read')

    const moved = await tp.request('PATCH', `${members}/${user.id}`, { token, body: { role: 'billing' } })
    expect(moved.status).toBe(200)
    expect((await read()).status).toBe(200)
    const change = await tp.request('PATCH', `/api/v1/customers/${customer.id}`, {
      token: memberToken,
      body: { name: 'Billing Co' },
    })
    expect((await expectProblem(change, 403, 'insufficient_scope')).scope).toBe('customer:manage')
  })
})

describe('customer list cursors', () => {
  test('a nextCursor replayed with other filters is 400 invalid_cursor', async () => {
    await createCustomer(token, { name: 'Page One' })
    await createCustomer(token, { name: 'Page Two' })
    const first = await tp.request('GET', '/api/v1/customers?limit=1', { token })
    const cursor = encodeURIComponent(((await first.json()) as Page<Customer>).nextCursor ?? '')
    expect(cursor).not.toBe('')
    expect((await tp.request('GET', `/api/v1/customers?limit=1&cursor=${cursor}`, { token })).status).toBe(
      200,
    )
    const brands = await tp.request('GET', '/api/v1/brands', { token })
    const brandId = ((await brands.json()) as { items: Brand[] }).items[0]?.id ?? ''
    const filtered = await tp.request(
      'GET',
      `/api/v1/customers?limit=1&brandId=${brandId}&cursor=${cursor}`,
      {
        token,
      },
    )
    await expectProblem(filtered, 400, 'invalid_cursor')
  })

  test('limit=0 and limit=101 are 422 at query.limit', async () => {
    for (const limit of [0, 101]) {
      const response = await tp.request('GET', `/api/v1/customers?limit=${limit}`, { token })
      await expectFieldProblem(response, 422, 'validation_failed', 'query.limit', 'out_of_range')
    }
  })

  test('a misspelt filter is 422 unknown_field rather than a wider list', async () => {
    const response = await tp.request('GET', '/api/v1/customers?brand=brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W', {
      token,
    })
    await expectFieldProblem(response, 422, 'validation_failed', 'query.brand', 'unknown_field')
  })
})
