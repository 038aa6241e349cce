// panel.handle answers routes without path parameters itself, past the router: exactly as the mounted app would.

import { describe, expect, test } from 'bun:test'
import { createTestPanel } from '../testing/create-test-panel.ts'
import { fixturePlugin } from '../testing/tenancy-fixture.ts'

/** What a client can tell apart of two answers: status, headers but the request id, and the body without it. */
async function seen(response: Response) {
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => name !== 'x-request-id' && name !== 'ratelimit'),
  )
  const text = await response.text()
  const body = text.startsWith('{') ? { ...JSON.parse(text), requestId: undefined } : text
  return { status: response.status, headers, body, requestId: response.headers.get('x-request-id') !== null }
}

describe('panel.handle', () => {
  test('answers as the mounted app does, for found, refused, misspelt and malformed requests', async () => {
    const tp = await createTestPanel({
      plugins: [fixturePlugin({ description: 'Scopes for the handle test.', scopes: ['site:read'] })],
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
        await tp.panel.app.handle(new Request(`http://localhost${path}`, { method, headers })),
      )
      expect({ method, path, ...direct }).toEqual({ method, path, ...routed })
    }
  })
})
