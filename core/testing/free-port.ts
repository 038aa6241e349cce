// A TCP port nothing listens on now, for a server a test starts (nginx, pebble, an agent's sites).

/**
 * Ports are taken below the kernel's ephemeral range (32768 and up by default): a port from that range, free a moment
 * ago, can become the local end of any process's outgoing connection (the PostgreSQL half opens hundreds) before the
 * test's server binds it. Ports handed out once are not handed out again in this process.
 */
const lowest = 20_000
const highest = 32_000
const given = new Set<number>()

/** Whether a server can listen on `port` on every address now. */
function bindable(port: number): boolean {
  try {
    Bun.serve({ port, hostname: '0.0.0.0', fetch: () => new Response() }).stop(true)
    return true
  } catch {
    return false
  }
}

/** A port free on every address a moment ago, never one this process was given before. */
export function freePort(): number {
  for (let tries = 0; tries < 1000; tries++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest))
    if (given.has(port) || !bindable(port)) continue
    given.add(port)
    return port
  }
  throw new Error(`no free port between ${lowest} and ${highest} after 1000 tries`)
}
