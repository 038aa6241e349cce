// The plugin's options: defaults, and the nonsense refused when a deployment is assembled rather than later.

import { describe, expect, test } from 'bun:test'
import { resolveSettings } from './options.ts'
import { retryAfterOf } from './transport.ts'

describe('resolveSettings', () => {
  test('defaults: 15 s timeout (DNS included), 64 attempts at once, 16 per endpoint, a lease 5 s past the timeout', () => {
    const settings = resolveSettings({})
    expect(settings).toMatchObject({
      timeoutMs: 15_000,
      concurrency: 64,
      perEndpointConcurrency: 16,
      leaseMs: 20_000,
    })
    expect(settings.policy.allowedHosts.size).toBe(0)
  })

  test('allowed hosts are normalised, and blanks from a trailing comma dropped', () => {
    const settings = resolveSettings({ allowedHosts: [' 127.0.0.1', 'LocalHost', '[::1]', '::1', ''] })
    expect([...settings.policy.allowedHosts].sort()).toEqual(['127.0.0.1', '::1', 'localhost'])
  })

  test.each(['127.0.0.1:8080', 'http://localhost', 'localhost/hooks', 'user@localhost', '[::1]:8080'])(
    'an allowed host with a scheme, port, path or user (%p) is refused: it would never match',
    (entry) => {
      expect(() => resolveSettings({ allowedHosts: [entry] })).toThrow(/bare host/)
    },
  )

  test('fractional or zero concurrency and a negative grace period are refused, naming the option', () => {
    expect(() => resolveSettings({ concurrency: 0.5 })).toThrow(/concurrency/)
    expect(() => resolveSettings({ perEndpointConcurrency: 0 })).toThrow(/perEndpointConcurrency/)
    expect(() => resolveSettings({ shutdownGraceMs: -1 })).toThrow(/shutdownGraceMs/)
    expect(() => resolveSettings({ retryScheduleMs: [5_000, 0] })).toThrow(/retryScheduleMs/)
  })
})

describe('retryAfterOf', () => {
  test('reads delay-seconds and HTTP dates; ignores what it cannot read', () => {
    const now = Date.parse('2026-11-23T10:00:00Z')
    expect(retryAfterOf('120', now)).toBe(120_000)
    expect(retryAfterOf('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(3_600_000)
    expect(retryAfterOf('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0)
    expect(retryAfterOf('soon', now)).toBeUndefined()
    expect(retryAfterOf(null, now)).toBeUndefined()
  })
})
