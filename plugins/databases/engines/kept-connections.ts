// The connections an engine keeps to each server it administers: one set per server and administrator, opened on
// first use and opened anew when the administrator's password changed (staff changed it with PATCH).

import type { ServerAccess } from './engine.ts'

/** Connections of type `C` kept per server; `open` makes them, `end` closes them. */
export class KeptConnections<C> {
  readonly #kept = new Map<string, { readonly connections: C; readonly password: string }>()

  constructor(
    private readonly open: (server: ServerAccess) => C,
    private readonly end: (connections: C) => Promise<unknown>,
  ) {}

  /** The connections of `server`, made now when there are none or they were made with another password. */
  of(server: ServerAccess): C {
    const key = keyOf(server)
    const kept = this.#kept.get(key)
    if (kept?.password === server.password) return kept.connections
    if (kept) this.end(kept.connections).catch(() => {})
    const connections = this.open(server)
    this.#kept.set(key, { connections, password: server.password })
    return connections
  }

  /** Closes the connections of `server`, or of every server. */
  async close(server?: ServerAccess): Promise<void> {
    const keys = server ? [keyOf(server)] : [...this.#kept.keys()]
    await Promise.all(
      keys.map(async (key) => {
        const kept = this.#kept.get(key)
        this.#kept.delete(key)
        if (kept) await this.end(kept.connections).catch(() => {})
      }),
    )
  }
}

function keyOf(server: ServerAccess): string {
  return `${server.host}:${server.port}:${server.username}`
}
