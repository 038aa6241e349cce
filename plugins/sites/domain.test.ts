// Domain normalisation: what a site's domain may be, and the canonical form it is stored in.

import { describe, expect, test } from 'bun:test'
import { normaliseDomain } from './domain.ts'

describe('normaliseDomain', () => {
  test('lower-cases and drops a trailing dot', () => {
    expect(normaliseDomain(' Example.COM. ')).toBe('example.com')
  })

  test('turns internationalised names into punycode', () => {
    expect(normaliseDomain('bücher.de')).toBe('xn--bcher-kva.de')
  })

  test('accepts deep subdomains and hyphens inside labels', () => {
    expect(normaliseDomain('a-b.c.d.example.co.uk')).toBe('a-b.c.d.example.co.uk')
  })

  for (const bad of [
    '',
    'localhost',
    'http://example.com',
    'example.com/path',
    'example.com:8080',
    'user@example.com',
    '-a.com',
    'a-.com',
    'a..com',
    '10.0.0.1',
    'example.123',
    'exa mple.com',
    `${'a'.repeat(64)}.com`,
  ]) {
    test(`refuses "${bad}"`, () => {
      expect(normaliseDomain(bad)).toBeNull()
    })
  }
})
