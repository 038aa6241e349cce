// Any host that speaks fetch (Bun, Deno, workers, Node adapters): the panel as `(Request) => Promise<Response>`.

import type { Panel } from '../../core/host.ts'

/** Options of {@link toFetchHandler}. */
export interface FetchHandlerOptions {
  /**
   * The client's address for a request, when the host knows it (audit entries, per-address login throttling).
   * Default: unknown, so logins are throttled per account only.
   */
  readonly addressOf?: (request: Request) => string | null
}

/** A plain fetch handler for `panel`. */
export function toFetchHandler(
  panel: Panel,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const { addressOf } = options
  return (request) => panel.handle(request, { address: addressOf?.(request) ?? null })
}
