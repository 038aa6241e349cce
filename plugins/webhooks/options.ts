// The webhooks plugin's options and their defaults, resolved once for the routes and the delivery loop.

import { isIP } from 'node:net'
import { defaultRetryScheduleMs } from './retry.ts'
import { allowedHostSet, type HostResolver, systemResolver, type UrlPolicy } from './url-guard.ts'

/** Options of `webhooksPlugin`. */
export interface WebhooksOptions {
  /**
   * Hosts exempt from the SSRF rules (`WEBHOOK_ALLOWED_HOSTS`): only these may use plain http or resolve to
   * loopback, private or other non-public addresses. Compared with the URL's host exactly (`127.0.0.1` does not
   * admit `127.0.0.2` or `[::1]`). Default none.
   * @example ['127.0.0.1', 'localhost']
   */
  readonly allowedHosts?: readonly string[]
  /**
   * Delays before the 2nd, 3rd, ... attempt, in ms (each ±10 % jitter); after the last, a failing delivery is
   * `failed`. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (ten attempts over about three days).
   */
  readonly retryScheduleMs?: readonly number[]
  /**
   * How long an attempt may take, DNS lookup, connection, TLS and answer together, before it counts as failed.
   * Default 15,000 ms.
   */
  readonly timeoutMs?: number
  /** How often the delivery loop looks for due deliveries (it is also woken by new events). Default 1,000 ms. */
  readonly pollIntervalMs?: number
  /**
   * Attempts in flight at once on this instance: as many as are due, up to this (an attempt is a promise, not a
   * thread). Default 64.
   */
  readonly concurrency?: number
  /**
   * Attempts in flight at once to one endpoint, counted across every instance, so an endpoint that hangs holds at
   * most this many workers while the others deliver, and no receiver gets more connections at once. Default 16 (a
   * receiver answering in 100 ms then takes about 160 events a second; see docs/performance.md, "Webhook delivery").
   */
  readonly perEndpointConcurrency?: number
  /**
   * How long `panel.close()` lets attempts in flight finish before abandoning them; an abandoned attempt is tried
   * again after the next start (at least once). Default 5,000 ms.
   */
  readonly shutdownGraceMs?: number
  /**
   * Resolves host names to every address (default: `node:dns` `lookup`). Deliveries connect only to an address it
   * returned and the guard approved; tests use it to make a name resolve where they need.
   */
  readonly resolve?: HostResolver
  /** Extra certificate authorities (PEM) trusted for https endpoints, beside the system ones. Default none. */
  readonly ca?: string
}

/** The options with defaults applied. */
export interface WebhookSettings {
  readonly policy: UrlPolicy
  readonly retryScheduleMs: readonly number[]
  readonly timeoutMs: number
  readonly pollIntervalMs: number
  readonly concurrency: number
  readonly perEndpointConcurrency: number
  readonly shutdownGraceMs: number
  /** How long a claimed attempt is kept from other workers: after it, a dead worker's attempt is taken over. */
  readonly leaseMs: number
  readonly ca: string | undefined
}

/** Default timeout of one attempt. */
export const defaultTimeoutMs = 15_000

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`webhooksPlugin: ${name} must be a positive number`)
  return value
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new Error(`webhooksPlugin: ${name} must be a number ≥ 0`)
  return value
}

function positiveWhole(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`webhooksPlugin: ${name} must be a whole number ≥ 1`)
  return value
}

/**
 * The allowed hosts, each a bare host name or address: an entry with a scheme, port, path or user would never match
 * a URL's host, so it is refused rather than silently ignored.
 */
function bareHosts(hosts: readonly string[]): readonly string[] {
  for (const entry of hosts) {
    const host = entry.trim()
    const bracketed = /^\[[0-9a-fA-F:.]+\]$/.test(host)
    const plainV6 = !bracketed && host.includes(':') && isIP(host) === 6
    if (host === '' || bracketed || plainV6) continue
    if (/[/:@?#\s]/.test(host))
      throw new Error(
        `webhooksPlugin: allowed host "${entry}" must be a bare host name or address (no scheme, port or path)`,
      )
  }
  return hosts
}

/** Applies defaults and checks the options; a bad option fails at start-up, naming it. */
export function resolveSettings(options: WebhooksOptions): WebhookSettings {
  const retryScheduleMs = options.retryScheduleMs ?? defaultRetryScheduleMs
  for (const delay of retryScheduleMs) positive('every retryScheduleMs entry', delay)
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? defaultTimeoutMs)
  return {
    policy: {
      allowedHosts: allowedHostSet(bareHosts(options.allowedHosts ?? [])),
      resolve: options.resolve ?? systemResolver,
    },
    retryScheduleMs,
    timeoutMs,
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs ?? 1_000),
    concurrency: positiveWhole('concurrency', options.concurrency ?? 64),
    perEndpointConcurrency: positiveWhole('perEndpointConcurrency', options.perEndpointConcurrency ?? 16),
    shutdownGraceMs: nonNegative('shutdownGraceMs', options.shutdownGraceMs ?? 5_000),
    // The attempt (bounded by the timeout) plus room to record its outcome: a killed server's attempt is made
    // again this long after it started.
    leaseMs: timeoutMs + 5_000,
    ca: options.ca,
  }
}
