// panel.handle answers routes without path parameters itself, past the router: exactly as the mounted app would.

import { describe, expect, test } from 'bun:test'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { fixturePlugin } from '../testing/tenancy-fixture.ts'

/** What a client can tell apart of two answers: status, headers but the request id, and the body without it. */
async function seen(response: Response) {
  const headers = Object.fromEntries(
    [...response.headers].filter(
      // nosniff is added by `handle` around whichever path answered.
      ([name]) => name !== 'x-request-id' && name !== 'ratelimit' && name !== 'x-content-type-options',
    ),
  )
  const text = await response.text()
  const body = text.startsWith('{') ? { ...JSON.parse(text), requestId: undefined } : text
  return { status: response.status, headers, body, requestId: response.headers.get('x-request-id') !== null }
}

describe('panel.handle', () => {
  test('answers as the mounted app does, for found, refused, misspelt and malformed requests', async () => {
    const tp = await createKernelTestPanel({
      plugins: [fixturePlugin({ description: 'Scopes for the handle test.', scopes: ['gadget:read'] })],
    })
    const token = await tp.token()
    const requests: [string, string, Record<string, string>][] = [
      ['GET', '/api/v1/me', { authorization: `Bearer ${token}` }],
      ['GET', '/api/v1/me', {}],
      ['GET', '/api/v1/me', { authorization: 'Bearer plinth_not-a-token' }],
      ['GET', '/api/v1/me?unknown=1', { authorization: `Bearer ${token}` }],
      ['GET', '/api/v1/me/', { authorization: `Bearer ${token}` }],
      ['GET', '/api/v1/%6De', { authorization: `Bearer ${token}` }],
      ['DELETE', '/api/v1/me', { authorization: `Bearer ${token}` }],
      ['GET', '/api/v1/nothing-here', { authorization: `Bearer ${token}` }],
      ['GET', '/healthz', {}],
    ]
    for (const [method, path, headers] of requests) {
      const direct = await seen(
        await tp.panel.handle(new Request(`http://localhost${path}`, { method, headers })),
      )
      const routed = await seen(
        await tp.panel.router.handle(new Request(`http://localhost${path}`, { method, headers })),
      )
      expect({ method, path, ...direct }).toEqual({ method, path, ...routed })
    }
  })
})

describe('cursors', () => {
  test('a cursor works whichever way the request came (direct or through the router), and filters may come in any order', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    const token = await tp.token()
    for (let i = 0; i < 3; i++) await tp.token()
    const headers = { authorization: `Bearer ${token}` }
    const first = (await (
      await tp.panel.handle(new Request('http://localhost/api/v1/api-tokens?limit=1', { headers }))
    ).json()) as { nextCursor: string }
    const viaRouter = await tp.panel.router.handle(
      new Request(
        `http://localhost/api/v1/api-tokens?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`,
        {
          headers,
        },
      ),
    )
    // Before: the router handed the route `undefined` parameters, the direct path `{}`, and the cursor was refused.
    expect(viaRouter.status).toBe(200)
    for (let i = 0; i < 3; i++)
      await tp.request('POST', '/api/v1/api-tokens', { token, body: { name: `t${i}`, scopes: ['*'] } })
    const me = (await (await tp.request('GET', '/api/v1/me', { token })).json()) as { user: { id: string } }
    const audit = async (query: string) =>
      tp.panel.handle(new Request(`http://localhost/api/v1/audit?${query}`, { headers }))
    const one = (await (await audit(`action=token.create&actor=${me.user.id}&limit=1`)).json()) as {
      nextCursor: string
    }
    const next = await audit(
      `limit=1&actor=${me.user.id}&action=token.create&cursor=${encodeURIComponent(one.nextCursor)}`,
    )
    expect(next.status).toBe(200)
    await tp.panel.close()
  })
})

describe('short host names', () => {
  test('a host of one to three characters (a container named `api`) is routed by its own path, parameters and body included', async () => {
    const tp = await createKernelTestPanel({ plugins: [] })
    const token = await tp.token()
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    for (const origin of ['http://a', 'http://api', 'https://ab', 'http://a:8']) {
      const created = await tp.panel.handle(
        new Request(`${origin}/api/v1/api-tokens`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `from ${origin}`, scopes: ['*'] }),
        }),
      )
      expect({ origin, status: created.status }).toEqual({ origin, status: 201 })
      const { id } = (await created.json()) as { id: string }
      const read = await tp.panel.handle(new Request(`${origin}/api/v1/api-tokens/${id}?`, { headers }))
      expect({ origin, status: read.status }).toEqual({ origin, status: 200 })
      expect(((await read.json()) as { name: string }).name).toBe(`from ${origin}`)
      const docs = await tp.panel.handle(new Request(`${origin}/api/docs/openapi.json`))
      expect({ origin, status: docs.status }).toEqual({ origin, status: 200 })
    }
  })
})
