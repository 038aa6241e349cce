// Host names of brands: the DNS names on which the sign-in page shows a brand, and the host a browser names.

const labelPattern = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

/** The most host names one brand has. */
export const maxHostnames = 20

/**
 * The stored form of a brand's host name (`Panel.Example.COM.` → `panel.example.com`), or null when it is no DNS
 * name: a scheme, port, path, space, IP address or Unicode label (give IDNs in their `xn--` form) is refused.
 */
export function canonicalHostname(input: string): string | null {
  const value = input.toLowerCase().replace(/\.$/, '')
  if (value.length === 0 || value.length > 253) return null
  const labels = value.split('.')
  if (!labels.every((label) => labelPattern.test(label))) return null
  // A last label of digits makes an IPv4 address (or a typo of one), never a DNS name: DNS has no numeric TLD.
  return /^[0-9]+$/.test(labels.at(-1) ?? '') ? null : value
}

/**
 * The host name a browser reports (`location.host`: `Panel.Example.com:8443`), without its port, as stored; null
 * when it cannot be a brand's (an IPv6 literal, junk).
 */
export function hostOfLocation(host: string): string | null {
  const value = host.trim()
  if (value.startsWith('[')) return null
  return canonicalHostname(value.replace(/:[0-9]*$/, ''))
}

/** The host names given, canonical and without repeats (`A.example` and `a.example` are one), in their order. */
export function canonicalHostnames(given: readonly string[]): string[] {
  const names: string[] = []
  for (const name of given) {
    const canonical = canonicalHostname(name)
    if (canonical !== null && !names.includes(canonical)) names.push(canonical)
  }
  return names
}
