// Serves a panel with Bun.serve in production mode, and stops it gracefully: no new connections, in-flight
// requests finished.

import {
  jsonLinesLogger,
  kernelProblems,
  type Logger,
  type Panel,
  type SocketHandler,
  socketUpgradeOf,
} from '../../core/host.ts'
import { clientAddress, isTrustedProxy, type TrustedProxies } from '../trusted-proxies.ts'

/** A running server. */
export interface RunningServer {
  readonly url: URL
  /**
   * Stops accepting and drains the panel at once (event streams end, jobs under way are given back), waits for the
   * requests in flight, then closes the panel.
   */
  stop(): Promise<void>
  /** Closes every open connection now, ending a `stop()` that waits on a stalled client. */
  forceClose(): void
}

/**
 * The request as the browser made it: from a trusted proxy that terminates TLS, `X-Forwarded-Proto` says the
 * scheme, and the panel (Secure cookies, the Origin check on session writes) reads it from the URL. From anyone
 * else the header is ignored, since anyone connecting directly could send it.
 */
function asSeenByBrowser(request: Request, fromProxy: boolean): Request {
  if (!fromProxy) return request
  const scheme = request.headers.get('x-forwarded-proto')
  if ((scheme !== 'https' && scheme !== 'http') || request.url.startsWith(`${scheme}:`)) return request
  const url = new URL(request.url)
  url.protocol = `${scheme}:`
  return new Request(url, request)
}

/**
 * What a failure the panel did not answer itself (a body stream that broke after the route returned) looks like:
 * a problem+json 500 that names nothing internal, never Bun's error page.
 */
function failure(error: unknown, log: Logger): Response {
  log.error({ err: error }, 'request failed outside the panel')
  return new Response(
    JSON.stringify({
      type: 'about:blank',
      title: 'Internal Server Error',
      status: 500,
      detail: kernelProblems.internal_error.detail,
      code: kernelProblems.internal_error.code,
    }),
    {
      status: 500,
      headers: { 'content-type': 'application/problem+json', 'x-content-type-options': 'nosniff' },
    },
  )
}

/** Starts serving `panel` on `hostname:port` (port 0 picks a free one). */
export function servePanel(
  panel: Panel,
  options: {
    hostname: string
    port: number
    /** The reverse proxies whose forwarded headers are believed (`TRUST_PROXY`); default none. */
    trustedProxies?: TrustedProxies
    log?: Logger
  },
): RunningServer {
  const log = options.log ?? jsonLinesLogger()
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    // Never Bun's development error page: it shows the working directory and source paths to anyone.
    development: false,
    // Bun shares a port between processes unless told not to: a second panel started on a port in use must be
    // refused, not silently answer half the traffic.
    reusePort: false,
    // No transport cap of Bun's own (it would answer a bare 413, no problem+json): every operation enforces its own,
    // a JSON body's BODY_LIMIT_BYTES as it reads, an upload's UPLOAD_LIMIT_BYTES as it streams, and bodies no
    // operation reads are never buffered.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Bun's default (10 s without a byte either way) would cut a job's event stream between its keep-alives (every
    // 15 s) and a slow answer (a WordPress operation): the most Bun allows, 255 s.
    idleTimeout: 255,
    fetch: async (request, bunServer) => {
      const socketAddress = bunServer.requestIP(request)?.address ?? null
      const proxies = options.trustedProxies ?? []
      const response = await panel.handle(asSeenByBrowser(request, isTrustedProxy(socketAddress, proxies)), {
        // Login throttling, rate limits and the audit log count by it.
        address: clientAddress(request.headers.get('x-forwarded-for'), socketAddress, proxies),
      })
      // A route that opened a WebSocket (Reply.upgrade) gets the connection; otherwise its 426 is the answer.
      const socket = socketUpgradeOf(response)
      if (socket && bunServer.upgrade(request, { data: socket })) return undefined
      return response
    },
    websocket: {
      // Bun pings idle sockets; the route's own idle rules decide when a session ends.
      idleTimeout: 960,
      maxPayloadLength: 1024 * 1024,
      open: (ws: Bun.ServerWebSocket<SocketHandler>) =>
        ws.data.open({ send: (data) => void ws.send(data), close: (code, reason) => ws.close(code, reason) }),
      message: (ws: Bun.ServerWebSocket<SocketHandler>, data: string | Buffer) =>
        ws.data.message(typeof data === 'string' ? data : new Uint8Array(data)),
      close: (ws: Bun.ServerWebSocket<SocketHandler>, code: number, reason: string) =>
        ws.data.close(code, reason),
    },
    error: (error) => failure(error, log),
  })
  let stopping: Promise<void> | undefined
  return {
    url: server.url,
    stop() {
      stopping ??= (async () => {
        await Promise.all([server.stop(false), panel.drain()])
        await panel.close()
      })()
      return stopping
    },
    forceClose() {
      void server.stop(true)
    },
  }
}
