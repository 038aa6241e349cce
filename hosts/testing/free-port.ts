// A TCP port nothing listens on now, for a server a test starts (nginx, pebble, an agent's sites).

/** A port on 127.0.0.1 that was free a moment ago. */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = server.port ?? 0
  server.stop(true)
  return port
}
