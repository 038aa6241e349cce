// Host names of nodes: a DNS name (one label allowed, `localhost`) or an IP address, normalised to lower case.

import { isIPv4, isIPv6 } from 'node:net'

const labelPattern = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/**
 * The canonical form of a node's host name (`Web-1.Example.NET.` → `web-1.example.net`, `[::1]` → `::1`), or null
 * when it is neither a host name nor an IP address. Anything URL-ish (scheme, port, path) is refused, not guessed at.
 */
export function normaliseHostname(input: string): string | null {
  const trimmed = input.trim().toLowerCase()
  // Brackets belong around IPv6 addresses only (as in URLs); `[a.example]` is not a host name.
  const unbracketed = /^\[(.*)\]$/.exec(trimmed)?.[1]
  if (unbracketed !== undefined) return isIPv6(unbracketed) ? unbracketed : null
  if (isIPv6(trimmed)) return trimmed
  const value = trimmed.replace(/\.$/, '')
  if (isIPv4(value)) return value
  // Dotted digits that are not an address (`999.1.1.1`, `10.1`) are a typo, not a host name.
  if (value.length === 0 || value.length > 253 || /^[0-9.]+$/.test(value)) return null
  return value.split('.').every((label) => labelPattern.test(label)) ? value : null
}
