// Rate limits through the front door: headers on every answer, 429 past the allowance, per credential.

import { describe, expect, test } from 'bun:test'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { expectProblem } from '../testing/problems.ts'
import { createRateLimiter } from './rate-limiter.ts'

describe('rate limits', () => {
  test('every answer says the policy and what is left; past it, 429 rate_limited with Retry-After', async () => {
    const tp = await createKernelTestPanel({ plugins: [], rateLimits: { perMinute: 3 } })
    try {
      const token = await tp.token()
      const answers = []
      for (let i = 0; i < 4; i++) answers.push(await tp.request('GET', '/api/v1/me', { token }))
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429])
      expect(answers[0]?.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60')
      expect(answers[0]?.headers.get('ratelimit')).toMatch(/^"default";r=2;t=\d+$/)
      const refused = answers[3] as Response
      const body = await expectProblem(refused, 429, 'rate_limited')
      expect(Number(refused.headers.get('retry-after'))).toBeWithin(1, 61)
      expect(body.retryAfter).toBe(Number(refused.headers.get('retry-after')))
      // Another token has its own allowance.
      expect((await tp.request('GET', '/api/v1/me', { token: await tp.token() })).status).toBe(200)
      // Errors count and carry the headers too.
      const unauthenticated = await tp.panel.handle(new Request('http://localhost/api/v1/me'), {
        address: '203.0.113.9',
      })
      expect(unauthenticated.status).toBe(401)
      expect(unauthenticated.headers.get('ratelimit')).toMatch(/^"default";r=2;/)
    } finally {
      await tp.panel.close()
    }
  })

  test('failed credentials are charged to their address, so a new junk token per request never escapes it', async () => {
    const tp = await createKernelTestPanel({ plugins: [], rateLimits: { perMinute: 3 } })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) {
        const request = new Request('http://localhost/api/v1/me', {
          headers: { authorization: `Bearer junk${i}` },
        })
        statuses.push((await tp.panel.handle(request, { address: '203.0.113.7' })).status)
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429])
      // A valid token from the same address keeps its own allowance.
      const token = await tp.token()
      const request = new Request('http://localhost/api/v1/me', {
        headers: { authorization: `Bearer ${token}` },
      })
      expect((await tp.panel.handle(request, { address: '203.0.113.7' })).status).toBe(200)
    } finally {
      await tp.panel.close()
    }
  })

  test('login has its own, stricter allowance per address', async () => {
    const tp = await createKernelTestPanel({ plugins: [], rateLimits: { loginPerMinute: 2 } })
    try {
      const login = () =>
        tp.panel.handle(
          new Request('http://localhost/api/v1/auth/login', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              email: `nobody-${crypto.randomUUID()}@example.test`,
              password: 'whatever it is',
            }),
          }),
          { address: '203.0.113.10' },
        )
      expect((await login()).headers.get('ratelimit-policy')).toBe('"login";q=2;w=60')
      await login()
      await expectProblem(await login(), 429, 'rate_limited')
      expect((await tp.request('GET', '/healthz')).headers.get('ratelimit')).toBeNull()
      // ...and the document promises no 429 and no RateLimit headers for the probes.
      const document = (await (await tp.request('GET', '/api/docs/openapi.json')).json()) as {
        paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }>
      }
      for (const probe of ['/healthz', '/readyz']) {
        const { responses } = document.paths[probe]?.get ?? { responses: {} }
        expect(Object.keys(responses)).not.toContain('429')
        expect(Object.keys(responses['200']?.headers ?? {})).not.toContain('RateLimit')
      }
    } finally {
      await tp.panel.close()
    }
  })
})

describe('createRateLimiter', () => {
  const token = (id: string) => ({ credential: `token:${id}` })

  test('a burst across a wall-clock minute boundary gets one allowance, not two (each key’s window opens with it)', () => {
    const limiter = createRateLimiter({ perMinute: 3, loginPerMinute: 1 })
    const boundary = Date.parse('2026-11-23T10:01:00.000Z')
    const at = [boundary - 300, boundary - 200, boundary - 100, boundary + 100]
    const refused = at.map((now) => limiter.take(token('a'), now)?.refusal !== null)
    expect(refused).toEqual([false, false, false, true])
    // The window closes a minute after it opened, and the allowance is whole again.
    expect(limiter.take(token('a'), boundary - 300 + 60_000)?.refusal).toBeNull()
  })

  test('Retry-After counts down to the end of the key’s own window', () => {
    const limiter = createRateLimiter({ perMinute: 1, loginPerMinute: 1 })
    const start = Date.parse('2026-11-23T10:00:30.000Z')
    limiter.take(token('b'), start)
    const refused = limiter.take(token('b'), start + 45_000)
    expect(refused?.refusal?.headers['retry-after']).toBe('15')
  })

  test('a request without an address is not limited by address', () => {
    const limiter = createRateLimiter({ perMinute: 1, loginPerMinute: 1 })
    expect(limiter.take({ address: null })).toBeNull()
    expect(limiter.take({ login: null })).toBeNull()
  })
})
