// Token requests: refused when they would grant more than the creator holds or live outside the lifetime policy.

import { describe, expect, test } from 'bun:test'
import { checkTokenRequest } from './token-request.ts'

const panelScopes = new Set(['gadget:read', 'gadget:create', 'customer:create'])
const creatorScopes = new Set(['gadget:read'])
const policy = { defaultDays: 90, maxDays: 365 }
const now = Date.parse('2026-01-01T00:00:00Z')
const request = { name: 't', scopes: ['gadget:read'], customerId: null, expiresAt: null }
const codes = (overrides: Partial<typeof request> & Record<string, unknown>, visible = true) =>
  checkTokenRequest({ ...request, ...overrides }, creatorScopes, panelScopes, visible, policy, now).map(
    (item) => [item.location, item.code],
  )

describe('checkTokenRequest', () => {
  test('accepts a request within the creator’s scopes and the default lifetime', () => {
    expect(codes({})).toEqual([])
    expect(codes({ scopes: ['*'] })).toEqual([])
  })

  test('refuses scopes the installation lacks or the creator does not hold', () => {
    expect(codes({ scopes: ['gadget:read', 'gadget:nope', 'gadget:create'] })).toEqual([
      ['body.scopes.1', 'unknown_scope'],
      ['body.scopes.2', 'scope_not_held'],
    ])
  })

  test('refuses a customer outside the creator’s view', () => {
    expect(codes({ customerId: 'cus_x' } as never, false)).toEqual([['body.customerId', 'unknown_customer']])
  })

  test('refuses an expiry in the past or beyond the longest lifetime', () => {
    expect(codes({ expiresAt: '2025-12-31T23:59:59Z' } as never)).toEqual([
      ['body.expiresAt', 'expiry_in_past'],
    ])
    expect(codes({ expiresAt: '2027-01-02T00:00:00Z' } as never)).toEqual([
      ['body.expiresAt', 'lifetime_too_long'],
    ])
    expect(codes({ expiresAt: '2026-12-31T00:00:00Z' } as never)).toEqual([])
    expect(codes({ expiresAt: '2026-01-01T00:00:01Z' } as never)).toEqual([])
  })
})
