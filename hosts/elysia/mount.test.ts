// mountPanel: the panel under a prefix of an existing Elysia app, which keeps answering its own routes.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type AnyElysia, Elysia } from 'elysia'
import { createTestPanel, type TestPanel } from '../testing/index.ts'
import { mountPanel } from './mount.ts'

describe('mountPanel', () => {
  let tp: TestPanel
  let app: AnyElysia

  beforeAll(async () => {
    tp = await createTestPanel()
    app = mountPanel(
      new Elysia().get('/', () => 'shop'),
      tp.panel,
      '/panel',
    )
  })

  afterAll(async () => {
    await tp.panel.close()
  })

  test('answers the panel health check under the prefix', async () => {
    const response = await app.handle(new Request('http://localhost/panel/healthz'))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok' })
  })

  test('answers a panel operation without a token with 401 problem+json', async () => {
    const response = await app.handle(new Request('http://localhost/panel/api/v1/sites/site_x'))
    expect(response.status).toBe(401)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer')
    expect(((await response.json()) as { code: string }).code).toBe('unauthenticated')
  })

  test("leaves the app's own routes to the app", async () => {
    const response = await app.handle(new Request('http://localhost/'))
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('shop')
  })

  test('does not take paths that merely start with the prefix', async () => {
    const response = await app.handle(new Request('http://localhost/panelist/healthz'))
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).not.toBe('application/problem+json')
  })

  test('passes query strings and bodies through to the panel', async () => {
    const token = await tp.token()
    const response = await app.handle(
      new Request('http://localhost/panel/api/v1/customers', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Acme' }),
      }),
    )
    expect(response.status).toBe(201)
    expect(((await response.json()) as { name: string }).name).toBe('Acme')
    // The panel refuses unknown query parameters, so a 422 shows the query arrived.
    const probe = await app.handle(new Request('http://localhost/panel/healthz?verbose=1'))
    expect(probe.status).toBe(422)
  })

  test('puts the prefix on Location headers, so they lead back into the panel', async () => {
    const token = await tp.token()
    const created = await app.handle(
      new Request('http://localhost/panel/api/v1/customers', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Located' }),
      }),
    )
    expect(created.status).toBe(201)
    const customer = (await created.json()) as { id: string }
    const location = created.headers.get('location')
    expect(location).toBe(`/panel/api/v1/customers/${customer.id}`)

    const read = await app.handle(
      new Request(`http://localhost${location}`, { headers: { authorization: `Bearer ${token}` } }),
    )
    expect(read.status).toBe(200)
    expect(await read.json()).toEqual(customer)
  })

  test("counts the app's own prefix in Location headers", async () => {
    const shop = mountPanel(new Elysia({ prefix: '/shop' }), tp.panel, '/panel/')
    const created = await shop.handle(
      new Request('http://localhost/shop/panel/api/v1/customers', {
        method: 'POST',
        headers: { authorization: `Bearer ${await tp.token()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Prefixed' }),
      }),
    )
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toStartWith('/shop/panel/api/v1/customers/cus_')
  })
})
