// TRUST_PROXY: the reverse proxies whose forwarded headers the panel believes (X-Forwarded-For, X-Forwarded-Proto),
// by address or CIDR. A request from anyone else is taken as it came: its socket's address, its own scheme.

import ipaddr from 'ipaddr.js'

/** The proxies trusted, each an address range; none by default. */
export type TrustedProxies = readonly (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[]

/** An address as compared: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as the IPv4 address it is. Null when junk. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.trim().replace(/^\[(.*)\]$/, '$1')
  return ipaddr.isValid(bare) ? ipaddr.process(bare) : null
}

/** A CIDR range; one of IPv4-mapped IPv6 addresses as the IPv4 range it is. Throws when malformed. */
function cidrOf(entry: string): readonly [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const [range, bits] = ipaddr.parseCIDR(entry)
  if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
    return [(range as ipaddr.IPv6).toIPv4Address(), bits - 96]
  return [range, bits]
}

/**
 * Reads `TRUST_PROXY` (`10.0.0.5`, `10.0.0.0/24,127.0.0.1`, `::1`): the ranges, or the complaint about it. Its old
 * form, `1`/`true`/`yes` (any caller), is refused with what to write instead; `0`/`false`/`no` mean none.
 */
export function parseTrustedProxies(
  value: string | undefined,
): { proxies: TrustedProxies } | { problem: string } {
  const text = (value ?? '').trim()
  if (['', '0', 'false', 'no'].includes(text.toLowerCase())) return { proxies: [] }
  if (['1', 'true', 'yes'].includes(text.toLowerCase()))
    return {
      problem: `TRUST_PROXY now names the proxies it trusts, by address or CIDR (127.0.0.1 for a proxy on this machine, 10.0.0.0/24,10.0.1.7 for others), not "${text}": forwarded addresses are believed only from them`,
    }
  const proxies: (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[] = []
  for (const entry of text.split(',').map((part) => part.trim())) {
    try {
      if (entry.includes('/')) proxies.push(cidrOf(entry))
      else {
        const address = parsed(entry)
        if (!address) throw new Error('not an address')
        proxies.push([address, address.kind() === 'ipv4' ? 32 : 128])
      }
    } catch {
      return {
        problem: `TRUST_PROXY must list proxies by IP address or CIDR (127.0.0.1, 10.0.0.0/24, fd00::/8), comma-separated; "${entry}" is neither`,
      }
    }
  }
  return { proxies }
}

/** Whether `address` is one of the trusted proxies. */
export function isTrustedProxy(address: string | null, proxies: TrustedProxies): boolean {
  const ip = address === null ? null : parsed(address)
  if (!ip) return false
  return proxies.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits))
}

/**
 * The client's address: the socket's, unless it is a trusted proxy; then `X-Forwarded-For` read from its end, past
 * every trusted proxy, to the first address that is not one (entries before it are whatever the client claimed).
 * An entry that is no address ends the walk at the proxy that passed it on.
 */
export function clientAddress(
  forwardedFor: string | null,
  socketAddress: string | null,
  proxies: TrustedProxies,
): string | null {
  if (!isTrustedProxy(socketAddress, proxies) || !forwardedFor) return socketAddress
  let client = socketAddress
  for (const entry of forwardedFor.split(',').reverse()) {
    const ip = parsed(entry)
    if (!ip) return client
    client = ip.toString()
    if (!isTrustedProxy(client, proxies)) return client
  }
  return client
}
