// Host names of nodes: DNS names and IP addresses in, lower-case canonical forms out, URL-ish input refused.

import { expect, test } from 'bun:test'
import { normaliseHostname } from './hostname.ts'

test('host names are lower-cased and lose a trailing dot; single labels such as localhost are allowed', () => {
  expect(normaliseHostname('Web-1.Example.NET.')).toBe('web-1.example.net')
  expect(normaliseHostname(' localhost ')).toBe('localhost')
  expect(normaliseHostname('node7')).toBe('node7')
})

test('IPv4 and IPv6 addresses are accepted, IPv6 with or without brackets', () => {
  expect(normaliseHostname('192.0.2.1')).toBe('192.0.2.1')
  expect(normaliseHostname('2001:DB8::1')).toBe('2001:db8::1')
  expect(normaliseHostname('[::1]')).toBe('::1')
})

test('anything else is refused', () => {
  for (const input of [
    '',
    ' ',
    'https://a.example',
    'a.example:8080',
    'a.example/path',
    'user@a.example',
    '-a.example',
    'a-.example',
    'a..example',
    '.a.example',
    '999.1.1.1',
    '10.1',
    'a_b.example',
    `${'a'.repeat(64)}.example`,
    `${'a.'.repeat(127)}example`,
    '[a.example]',
  ]) {
    expect(normaliseHostname(input)).toBeNull()
  }
})
