// The SSRF guard: which URLs webhooks may call (https to public unicast addresses, unless the operator exempts a
// host), checked when an endpoint is saved and again before every delivery, which then connects to the checked address.

import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Resolves a host name to every address it has (A and AAAA); throws or answers `[]` when it has none. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>

/** The system resolver, as connections use it: `node:dns` `lookup` with every address, in the resolver's order. */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, order: 'verbatim' })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }))

/** Why a URL is refused; each is a problem code of the plugin (see problems.ts). */
export type UrlRefusalCode =
  | 'invalid_webhook_url'
  | 'webhook_url_not_https'
  | 'webhook_address_not_public'
  | 'webhook_host_unresolvable'

/** A refusal with the sentence that explains it (the `errors[].message` of the 422). */
export interface UrlRefusal {
  readonly code: UrlRefusalCode
  readonly message: string
}

/** A URL that passed the guard, and the one address a delivery to it must connect to. */
export interface WebhookTarget {
  readonly url: URL
  /** The URL's host as compared with the allowed hosts: lower-case, no brackets or trailing dot, IPs canonical. */
  readonly host: string
  /** The checked address to connect to (for an IP literal, the literal itself). */
  readonly address: string
  readonly family: 4 | 6
  /** Whether the host is exempt (listed in the allowed hosts): plain http and non-public addresses pass. */
  readonly exempt: boolean
}

/** The outcome of a check. */
export type TargetCheck =
  | { readonly ok: true; readonly target: WebhookTarget }
  | { readonly ok: false; readonly refusal: UrlRefusal }

/** What the guard needs to know. */
export interface UrlPolicy {
  /** Hosts exempt from the rules (`WEBHOOK_ALLOWED_HOSTS`), already normalised with {@link normaliseHost}. */
  readonly allowedHosts: ReadonlySet<string>
  readonly resolve: HostResolver
}

/** Longest URL an endpoint may have. */
export const maxUrlLength = 2048

/**
 * A host as the guard compares it: lower-case, without IPv6 brackets or a trailing dot, and an IP address in its
 * canonical form (`0177.0.0.1`, `2130706433` and `::ffff:127.0.0.1` all become `127.0.0.1`).
 */
export function normaliseHost(host: string): string {
  let name = host.trim().toLowerCase()
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1)
  if (name.endsWith('.')) name = name.slice(0, -1)
  return ipaddr.isValid(name) ? ipaddr.process(name).toString() : name
}

/** The allowed hosts as a set the guard can use: `['127.0.0.1', 'LOCALHOST']` → `{127.0.0.1, localhost}`. */
export function allowedHostSet(hosts: readonly string[]): ReadonlySet<string> {
  return new Set(hosts.map(normaliseHost).filter((host) => host !== ''))
}

/** The IPv6 global unicast block (2000::/3): everything outside it is special-purpose or unallocated. */
const globalUnicast = ipaddr.parseCIDR('2000::/3')

/**
 * Names the range of a non-public address (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`,
 * `multicast`, `unspecified`, `reserved`, `cloudMetadata`, ...), or null when it is public unicast.
 */
export function nonPublicRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid'
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) reaches the IPv4 address: judge that one.
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4' && parsed.toString() === '169.254.169.254') return 'cloudMetadata'
  const range = parsed.range()
  if (range !== 'unicast') return range
  if (parsed.kind() === 'ipv6' && !parsed.match(globalUnicast)) return 'reserved'
  return null
}

const rangeNames: Readonly<Record<string, string>> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'the unspecified address',
  cloudMetadata: 'the cloud metadata address',
}

function describeRange(range: string): string {
  return rangeNames[range] ?? `a special-purpose address (${range})`
}

const refuse = (code: UrlRefusalCode, message: string): TargetCheck => ({
  ok: false,
  refusal: { code, message },
})

/** The syntactic checks, without DNS: an absolute https URL (http only for exempt hosts), no credentials. */
export function parseWebhookUrl(
  raw: string,
  allowedHosts: ReadonlySet<string>,
): { ok: true; url: URL; host: string; exempt: boolean } | { ok: false; refusal: UrlRefusal } {
  const invalid = (message: string) =>
    ({ ok: false, refusal: { code: 'invalid_webhook_url', message } }) as const
  if (raw.length > maxUrlLength) return invalid(`must be at most ${maxUrlLength} characters`)
  if (!URL.canParse(raw)) return invalid('must be an absolute URL, such as https://example.com/webhooks')
  const url = new URL(raw)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return invalid('must be an https URL')
  if (url.username !== '' || url.password !== '') return invalid('must not contain a user name or password')
  if (url.hostname === '') return invalid('must name a host')
  if (url.port === '0') return invalid('must not use port 0')
  const host = normaliseHost(url.hostname)
  const exempt = allowedHosts.has(host)
  if (url.protocol === 'http:' && !exempt) {
    return {
      ok: false,
      refusal: {
        code: 'webhook_url_not_https',
        message: 'must use https; plain http is only for hosts the operator allows (WEBHOOK_ALLOWED_HOSTS)',
      },
    }
  }
  // The fragment is never sent; keeping it would only make two equal endpoints look different.
  url.hash = ''
  // Punycode and percent-encoding can make the stored form longer than what was typed.
  if (url.href.length > maxUrlLength)
    return invalid(`must be at most ${maxUrlLength} characters once encoded`)
  return { ok: true, url, host, exempt }
}

/** `work`, or a rejection as soon as `signal` aborts (a resolver cannot be interrupted, only stopped waiting for). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * Checks a webhook URL completely: its form, then every address its host resolves to must be public unicast (an
 * exempt host may resolve anywhere). Answers the address to connect to, so nothing resolved later can differ.
 * `signal` bounds the DNS lookup: when it aborts first, the host counts as unresolvable.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: UrlPolicy,
  signal?: AbortSignal,
): Promise<TargetCheck> {
  const parsed = parseWebhookUrl(raw, policy.allowedHosts)
  if (!parsed.ok) return parsed
  const { url, host, exempt } = parsed
  let addresses: readonly ResolvedAddress[]
  const literal = isIP(host)
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  } else {
    try {
      addresses = await unlessAborted(policy.resolve(host), signal)
    } catch (error) {
      if (signal?.aborted)
        return refuse('webhook_host_unresolvable', `the host ${host} did not resolve in time`)
      const reason = (error as { code?: string }).code ?? (error as Error).message
      return refuse('webhook_host_unresolvable', `the host ${host} does not resolve (${reason})`)
    }
    if (addresses.length === 0) return refuse('webhook_host_unresolvable', `the host ${host} has no address`)
  }
  if (!exempt) {
    for (const { address } of addresses) {
      const range = nonPublicRange(address)
      if (range === null) continue
      // For a name, the address stays unsaid: it would tell staff of a brand what the provider's internal names are.
      const subject = literal !== 0 ? `${address} is` : `the host ${host} resolves to`
      return refuse(
        'webhook_address_not_public',
        `${subject} ${describeRange(range)}; webhooks may only call public addresses`,
      )
    }
  }
  const [first] = addresses
  if (!first) return refuse('webhook_host_unresolvable', `the host ${host} has no address`)
  // A resolver answer that is not an address cannot be connected to safely, exempt host or not.
  if (!ipaddr.isValid(first.address))
    return refuse(
      'webhook_host_unresolvable',
      `the host ${host} resolved to "${first.address}", not an address`,
    )
  // Connect to the IPv4 form of a mapped address, the one that was judged.
  const address = ipaddr.process(first.address).toString()
  return {
    ok: true,
    target: { url, host, address, family: isIP(address) === 6 ? 6 : 4, exempt },
  }
}
