// Sends one webhook request to the address the SSRF guard checked, never to whatever DNS answers next: the
// connection goes to that address literally, while the Host header, TLS SNI and certificate check keep the URL's name.

import { checkServerIdentity } from 'node:tls'
import type { WebhookTarget } from './url-guard.ts'

/** One POST to a checked target. */
export interface PinnedPost {
  readonly target: Pick<WebhookTarget, 'url' | 'address' | 'family'>
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The whole attempt (connect, TLS, answer) must finish within this; later is a timeout. */
  readonly timeoutMs: number
  /** Aborts the attempt (shutdown). */
  readonly signal?: AbortSignal
  /** Extra trusted certificate authorities (PEM), beside the system ones. For tests with a private CA. */
  readonly ca?: string
}

/** How an attempt ended: an answer (any status), or no answer. */
export type PostOutcome =
  | {
      readonly kind: 'answered'
      readonly status: number
      readonly durationMs: number
      /** What a 429 or 503 asked for with `Retry-After` (seconds or an HTTP date), in ms; absent otherwise. */
      readonly retryAfterMs?: number
    }
  | {
      readonly kind: 'failed'
      readonly reason: 'timeout' | 'aborted' | 'network'
      readonly message: string
      readonly durationMs: number
    }

/** A `Retry-After` value (delay-seconds or an HTTP date) in ms from now; undefined when absent or unreadable. */
export function retryAfterOf(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^[0-9]{1,10}$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** The URL the connection is made to: the checked address in place of the host name, everything else kept. */
export function pinnedUrl(target: Pick<WebhookTarget, 'url' | 'address' | 'family'>): URL {
  const pinned = new URL(target.url)
  pinned.hostname = target.family === 6 ? `[${target.address}]` : target.address
  return pinned
}

/** The URL's host name as TLS compares it: without IPv6 brackets or a trailing dot. */
function tlsName(url: URL): string {
  const name = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/**
 * POSTs `body` to the target's URL, connecting only to `target.address`. Redirects are not followed (a 3xx is an
 * answer like any other, and never a success). Never throws: network errors, timeouts and aborts are outcomes.
 */
export async function postPinned(post: PinnedPost): Promise<PostOutcome> {
  const { url } = post.target
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const timeout = AbortSignal.timeout(post.timeoutMs)
  const signal = post.signal ? AbortSignal.any([timeout, post.signal]) : timeout
  const name = tlsName(url)
  const init: RequestInit & { tls?: Record<string, unknown> } = {
    method: 'POST',
    headers: { ...post.headers, host: url.host },
    body: post.body,
    redirect: 'manual',
    signal,
    // A connection of its own: a pooled one could carry another host name's TLS session to the same address.
    keepalive: false,
  }
  if (url.protocol === 'https:') {
    init.tls = {
      serverName: name,
      // The certificate must name the URL's host, not the address connected to.
      checkServerIdentity: (_address: string, certificate: Parameters<typeof checkServerIdentity>[1]) =>
        checkServerIdentity(name, certificate),
      ...(post.ca ? { ca: post.ca } : {}),
    }
  }
  try {
    const response = await fetch(pinnedUrl(post.target), init)
    const status = response.status
    // Only the status counts; the body is dropped unread so a chatty receiver cannot hold the worker.
    await response.body?.cancel().catch(() => {})
    const retryAfterMs =
      status === 429 || status === 503 ? retryAfterOf(response.headers.get('retry-after')) : undefined
    return {
      kind: 'answered',
      status,
      durationMs: elapsed(),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    }
  } catch (error) {
    if (timeout.aborted)
      return {
        kind: 'failed',
        reason: 'timeout',
        message: `no answer within ${post.timeoutMs} ms`,
        durationMs: elapsed(),
      }
    if (post.signal?.aborted)
      return {
        kind: 'failed',
        reason: 'aborted',
        message: 'the attempt was abandoned (the panel is stopping)',
        durationMs: elapsed(),
      }
    return {
      kind: 'failed',
      reason: 'network',
      message: error instanceof Error ? error.message : String(error),
      durationMs: elapsed(),
    }
  }
}
