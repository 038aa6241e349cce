// WebSockets opened by routes: a route answers `Reply.upgrade(handler)` once it has checked the request (its
// credential, tenancy, the Origin), and a host that can upgrade connections (the standard Bun host) finds the
// handler on the panel's answer with `socketUpgradeOf` and hands it the socket. A host that cannot sends the
// answer as it is: 426 Upgrade Required.

/** The WebSocket a route's handler talks through. */
export interface PanelSocket {
  /** Sends a text frame (a string) or a binary one. */
  send(data: string | Uint8Array): void
  /** Closes the connection (1000 by default). */
  close(code?: number, reason?: string): void
}

/** What a route does with the WebSocket it opened; the host calls these in order (`open` once, `close` once). */
export interface SocketHandler {
  open(socket: PanelSocket): void
  /** A frame from the client: text as a string, binary as bytes. */
  message(data: string | Uint8Array): void
  close(code: number, reason: string): void
}

const upgrades = new WeakMap<Response, SocketHandler>()

/** Marks `response` (426 Upgrade Required) as opening a WebSocket handled by `handler`. */
export function markSocketUpgrade(response: Response, handler: SocketHandler): Response {
  upgrades.set(response, handler)
  return response
}

/** The handler of the WebSocket a panel's answer opens, or undefined for an ordinary answer. */
export function socketUpgradeOf(response: Response): SocketHandler | undefined {
  return upgrades.get(response)
}
