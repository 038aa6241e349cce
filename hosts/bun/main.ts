// `npm start`: the standalone panel. PORT (3000), HOST (127.0.0.1), DATA_DIR (./data), TRUST_PROXY; exits 0 after SIGTERM.

import { openStandardPanel, settingsFromEnv } from '../standard-panel.ts'
import { servePanel } from './serve.ts'

const startedAt = performance.now()
const port = Number(process.env.PORT || '3000')
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not "${process.env.PORT}"`)
  process.exit(2)
}
const settings = settingsFromEnv()
const panel = await openStandardPanel(settings)
const trustProxy = ['1', 'true', 'yes'].includes((process.env.TRUST_PROXY ?? '').toLowerCase())
const server = servePanel(panel, { hostname: process.env.HOST ?? '127.0.0.1', port, trustProxy })
// Job workers, the event dispatcher and webhook delivery run beside the server.
panel.start()
console.log(
  `Plinth panel listening on ${server.url.href.replace(/\/$/, '')} (data in ${settings.dataDir}, ready in ${Math.round(performance.now() - startedAt)} ms)`,
)

/** How long in-flight requests get after SIGTERM before their connections are closed anyway. */
const shutdownGraceMs = 10_000

async function shutdown(signal: string): Promise<void> {
  console.log(`${signal} received: finishing in-flight requests`)
  const deadline = setTimeout(() => server.forceClose(), shutdownGraceMs)
  await server.stop()
  clearTimeout(deadline)
  console.log('Plinth panel stopped')
  process.exit(0)
}
process.once('SIGTERM', () => void shutdown('SIGTERM'))
process.once('SIGINT', () => void shutdown('SIGINT'))
