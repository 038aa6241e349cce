// POST and GET /api/v1/customers as a client sees them.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel } from '../../core/testing/create-test-panel.ts'
import { brandsPlugin } from '../brands/index.ts'
import type { Customer } from './contract.ts'
import { customersPlugin } from './index.ts'

let tp: TestPanel
let token: string

beforeAll(async () => {
  tp = await createTestPanel({ plugins: [brandsPlugin(), customersPlugin()] })
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

  test('a contact e-mail already in use is 409 customer_email_taken', async () => {
    await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'One', email: 'same@example.test' },
    })
    const response = await tp.request('POST', '/api/v1/customers', {
      token,
      body: { name: 'Two', email: 'SAME@example.test' },
    })
    expect(response.status).toBe(409)
    expect(((await response.json()) as { code: string }).code).toBe('customer_email_taken')
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
