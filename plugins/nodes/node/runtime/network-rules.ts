// The nftables table that keeps a node's sites off the node's own addresses: written whole from what the sites may
// reach there, so loading it (`nft -f`) replaces the previous one in one transaction, never leaving a moment with
// neither.

import { createHash } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'

/** What a node's sites may reach on the node's own addresses, and whose processes are the sites'. */
export interface SiteReach {
  /** The uids of the sites' Unix users: the sockets their processes open are the ones the table holds back. */
  readonly siteUids: readonly number[]
  /**
   * TCP ports on the node's own addresses the sites may reach: its nginx's (HTTP and HTTPS, so one site may call
   * another, or itself, as anyone on the internet may) and its database server's (the one their grants name).
   */
  readonly ports: readonly number[]
  /** The resolvers `/etc/resolv.conf` names (127.0.0.53, a container's 127.0.0.11): reached on port 53 only. */
  readonly resolvers: readonly string[]
  /** Addresses off the node closed to the sites whole: the panel's, for an agent. */
  readonly closed: readonly string[]
  /**
   * What one site's user alone may reach besides, by address and TCP port: the servers its application names (a
   * database server on the panel's machine, at 127.0.0.1).
   */
  readonly siteServers: readonly SiteServer[]
}

/** A server one site's processes may reach on the node's own addresses. */
export interface SiteServer {
  readonly uid: number
  /** An IPv4 or IPv6 address. */
  readonly address: string
  readonly port: number
}

/**
 * How many flows (connections, and UDP exchanges for their 30 s) one site's user may have open at once. The table's
 * `ct state` rules put every packet through the kernel's connection tracking, whose table is the node's
 * (`nf_conntrack_max`, 262,144 here): full, it drops every new connection on the node, every site's visitors and the
 * agent's included. One site sending datagrams to 262,144 ports filled it in seconds; past its share its new flows
 * are refused (closed TCP connections, in TIME_WAIT, no longer count). A WordPress site holds a few dozen.
 */
export const siteFlowShare = 4096

/**
 * The table's name for a runtime over `dataDir`: its own, so two runtimes on one machine (tests, a panel beside an
 * agent) never replace each other's.
 */
export function networkTableName(dataDir: string): string {
  return `plinth_sites_${createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`
}

/** Addresses of one family as an nft set literal's elements, or null when there is none. */
function elements(addresses: readonly string[]): string | null {
  return addresses.length === 0 ? null : `{ ${addresses.join(', ')} }`
}

/** `address` without an IPv6 zone (`fe80::1%eth0`), or null when it is no IP address. */
function bareAddress(address: string): string | null {
  const bare = address.replace(/%.*$/, '')
  return isIPv4(bare) || isIPv6(bare) ? bare : null
}

/**
 * The script `nft -f` loads: the table made if missing and deleted, then written whole, all in one transaction.
 *
 * Its output chain sends what a site's user sends to the `site` chain, which lets through answers on connections
 * others opened to the site's programs, DNS to the resolvers and
 * the allowed ports on the node's own addresses (every site's, and each site's own servers), and refuses everything else to any address of the node (`fib daddr
 * type local`: loopback, its interfaces' addresses, ones added later, whatever the panel or a service listens on),
 * to loopback and link-local (169.254.169.254, the cloud's metadata, is there), and to the closed addresses; the
 * rest, the internet and remote database servers, passes. Refused with a TCP reset or an ICMP error, so a client
 * fails at once rather than waiting out its timeout. The chain comes before NAT's (priority -150, NAT's output is
 * -100): it judges what the site asked for, before a container's DNAT (Docker's 127.0.0.11 resolver) rewrites it.
 */
export function networkRules(table: string, reach: SiteReach): string {
  const resolvers = [...new Set(reach.resolvers.flatMap((address) => bareAddress(address) ?? []))]
  // Those in loopback or link-local are refused by the ranges already: not listed again inside them.
  const closed = [...new Set(reach.closed.flatMap((address) => bareAddress(address) ?? []))].filter(
    (address) => !/^(127\.|169\.254\.|::1$|fe[89ab][0-9a-f]:)/i.test(address),
  )
  const v4Resolvers = elements(resolvers.filter((address) => isIPv4(address)))
  const v6Resolvers = elements(resolvers.filter((address) => isIPv6(address)))
  const ports = [...new Set(reach.ports)].sort((a, b) => a - b)
  const uids = [...new Set(reach.siteUids)].sort((a, b) => a - b)
  const servers = (family: (address: string) => boolean) => [
    ...new Set(
      reach.siteServers.flatMap(({ uid, address, port }) => {
        const bare = bareAddress(address)
        return bare && family(bare) ? [`${uid} . ${bare} . ${port}`] : []
      }),
    ),
  ]
  const servers4 = servers((address) => isIPv4(address))
  const servers6 = servers((address) => isIPv6(address))
  const lines = [
    `table inet ${table}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    '\tset site_uids {',
    '\t\ttype uid',
    ...(uids.length > 0 ? [`\t\telements = { ${uids.join(', ')} }`] : []),
    '\t}',
    '\tset site_servers4 {',
    '\t\ttype uid . ipv4_addr . inet_service',
    ...(servers4.length > 0 ? [`\t\telements = { ${servers4.join(', ')} }`] : []),
    '\t}',
    '\tset site_servers6 {',
    '\t\ttype uid . ipv6_addr . inet_service',
    ...(servers6.length > 0 ? [`\t\telements = { ${servers6.join(', ')} }`] : []),
    '\t}',
    // Each site user's flows, counted by the kernel (a dynamic set's `ct count`).
    '\tset site_flows {',
    '\t\ttype uid',
    '\t\tsize 65535',
    '\t\tflags dynamic',
    '\t}',
    '\tchain output {',
    '\t\ttype filter hook output priority -150; policy accept;',
    '\t\tmeta skuid @site_uids jump site',
    '\t}',
    '\tchain site {',
    // Answers on a connection someone else opened (root asking a program the site runs on loopback) pass: the site
    // opens none to what is closed to it.
    `\t\tct state new add @site_flows { meta skuid ct count over ${siteFlowShare} } goto refuse`,
    '\t\tct state established,related accept',
    ...(v4Resolvers ? [`\t\tip daddr ${v4Resolvers} meta l4proto { tcp, udp } th dport 53 accept`] : []),
    ...(v6Resolvers ? [`\t\tip6 daddr ${v6Resolvers} meta l4proto { tcp, udp } th dport 53 accept`] : []),
    ...(ports.length > 0 ? [`\t\tfib daddr type local tcp dport { ${ports.join(', ')} } accept`] : []),
    '\t\tmeta skuid . ip daddr . tcp dport @site_servers4 accept',
    '\t\tmeta skuid . ip6 daddr . tcp dport @site_servers6 accept',
    '\t\tfib daddr type local goto refuse',
    `\t\tip daddr ${elements(['127.0.0.0/8', '169.254.0.0/16', ...closed.filter((address) => isIPv4(address))])} goto refuse`,
    `\t\tip6 daddr ${elements(['::1', 'fe80::/10', ...closed.filter((address) => isIPv6(address))])} goto refuse`,
    '\t}',
    '\tchain refuse {',
    '\t\tmeta l4proto tcp counter reject with tcp reset',
    '\t\tcounter reject with icmpx admin-prohibited',
    '\t}',
    '}',
  ]
  return `${lines.join('\n')}\n`
}

/** The script that deletes the table, whether or not it is there. */
export function deleteRules(table: string): string {
  return `table inet ${table}\ndelete table inet ${table}\n`
}
