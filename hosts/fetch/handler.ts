// Any host that speaks fetch (Bun, Deno, workers, Node adapters): the panel as `(Request) => Promise<Response>`.

import type { Panel } from '../../core/index.ts'

/** A plain fetch handler for `panel`. */
export function toFetchHandler(panel: Panel): (request: Request) => Promise<Response> {
  return (request) => panel.handle(request)
}
