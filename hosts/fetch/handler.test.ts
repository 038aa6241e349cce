// toFetchHandler: the panel as a plain (Request) => Promise<Response>, the way fetch-speaking hosts call it.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel } from '../testing/index.ts'
import { toFetchHandler } from './handler.ts'

describe('toFetchHandler', () => {
  let tp: TestPanel
  let handle: (request: Request) => Promise<Response>

  beforeAll(async () => {
    tp = await createTestPanel()
    handle = toFetchHandler(tp.panel)
  })

  afterAll(async () => {
    await tp.panel.close()
  })

  test('answers a Request with the health check', async () => {
    const response = await handle(new Request('http://localhost/healthz'))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toStartWith('application/json')
    expect(await response.json()).toEqual({ status: 'ok' })
  })

  test('answers an unknown route with a 404 problem+json', async () => {
    const response = await handle(new Request('http://localhost/api/v1/nothing-here'))
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(((await response.json()) as { code: string }).code).toBe('route_not_found')
  })

  test('answers an operation without a token with 401 and a Bearer challenge', async () => {
    const response = await handle(new Request('http://localhost/api/v1/sites/site_x'))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toStartWith('Bearer')
  })

  test('runs a whole operation: a customer and a site created with a token', async () => {
    const token = await tp.token()
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const customer = await handle(
      new Request('http://localhost/api/v1/customers', {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Acme' }),
      }),
    )
    expect(customer.status).toBe(201)
    const { id: customerId } = (await customer.json()) as { id: string }
    const site = await handle(
      new Request('http://localhost/api/v1/sites', {
        method: 'POST',
        headers,
        body: JSON.stringify({ customerId, name: 'My Blog', type: 'wordpress', domain: 'blog.example.com' }),
      }),
    )
    expect(site.status).toBe(201)
    expect(await site.json()).toMatchObject({ customerId, handle: 'my-blog', status: 'provisioning' })
  })

  test('is a fetch handler Bun.serve can run as it is', async () => {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handle })
    try {
      const response = await fetch(new URL('/readyz', server.url))
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ status: 'ok' })
    } finally {
      await server.stop(true)
    }
  })
})

test('passes the address the host knows to the panel, where audit entries record it', async () => {
  const tp = await createTestPanel()
  try {
    const token = await tp.token()
    const handle = toFetchHandler(tp.panel, { addressOf: () => '198.51.100.7' })
    const response = await handle(
      new Request('http://localhost/api/v1/brands', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Addressed' }),
      }),
    )
    expect(response.status).toBe(201)
    const audit = await tp.panel.store.db
      .withTables<{ audit_entries: { action: string; source_address: string | null } }>()
      .selectFrom('audit_entries')
      .select(['action', 'source_address'])
      .where('action', '=', 'brand.create')
      .executeTakeFirstOrThrow()
    expect(audit.source_address).toBe('198.51.100.7')
  } finally {
    await tp.panel.close()
  }
})
