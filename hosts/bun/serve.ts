// Serves a panel with Bun.serve, and stops it gracefully: no new connections, in-flight requests finished.

import type { Panel } from '../../core/index.ts'

/** A running server. */
export interface RunningServer {
  readonly url: URL
  /** Stops accepting, waits for in-flight requests, then closes the panel's store. */
  stop(): Promise<void>
  /** Closes every open connection now, ending a `stop()` that waits on a stalled client. */
  forceClose(): void
}

/**
 * The client's address: the socket's, or behind one trusted proxy (`trustProxy`) the last X-Forwarded-For entry,
 * the one that proxy added (earlier entries are whatever the client claimed). Login throttling counts by it.
 */
function clientAddress(request: Request, socketAddress: string | null, trustProxy: boolean): string | null {
  if (!trustProxy) return socketAddress
  const forwarded = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim()
  return forwarded || socketAddress
}

/** Starts serving `panel` on `hostname:port` (port 0 picks a free one). */
export function servePanel(
  panel: Panel,
  options: { hostname: string; port: number; trustProxy?: boolean },
): RunningServer {
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    // Generous transport cap; the panel itself answers 413 problem+json past its own (smaller) limit.
    maxRequestBodySize: Math.max(panel.limits.bodyBytes * 4, 16 * 1024 * 1024),
    fetch: (request, bunServer) =>
      panel.handle(request, {
        address: clientAddress(
          request,
          bunServer.requestIP(request)?.address ?? null,
          options.trustProxy ?? false,
        ),
      }),
  })
  let stopping: Promise<void> | undefined
  return {
    url: server.url,
    stop() {
      stopping ??= (async () => {
        await server.stop(false)
        await panel.close()
      })()
      return stopping
    },
    forceClose() {
      void server.stop(true)
    },
  }
}
