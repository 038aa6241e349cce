// The standard host: read the settings, open the installation, serve it, stop gracefully on SIGTERM. `npm start`
// runs it; an embedder's own entry point may too, with a plugin list of its own.

import type { Panel } from '../../core/host.ts'
import { type Installation, installationPlugins, type PluginList } from '../plinth-config.ts'
import { type StandardSettings, settingsFromEnv } from '../settings.ts'
import { openStandardPanel } from '../standard-panel.ts'
import { reportStartupFailure } from '../startup-failure.ts'
import { type RunningServer, servePanel } from './serve.ts'

/** How long in-flight requests get after SIGTERM before their connections are closed anyway. */
const shutdownGraceMs = 10_000

/** A served installation. */
export interface StandardServer {
  readonly panel: Panel
  readonly server: RunningServer
  readonly settings: StandardSettings
}

/**
 * Serves the installation the environment describes (docs/operators.md): prints its URL, and exits 0 after
 * SIGTERM or SIGINT once in-flight requests are done. A bad setting, PLINTH_CONFIG or plugin list is reported on
 * stderr, a line each, and the process exits 2. `plugins` gives the installation's plugins instead of PLINTH_CONFIG.
 */
export async function runStandardServer(
  plugins?: (settings: StandardSettings) => PluginList | Installation,
): Promise<StandardServer> {
  const startedAt = performance.now()
  let opened: { settings: StandardSettings; panel: Panel }
  try {
    const settings = settingsFromEnv()
    const list = plugins ? plugins(settings) : await installationPlugins(settings)
    opened = { settings, panel: await openStandardPanel(settings, list) }
  } catch (error) {
    return reportStartupFailure(error)
  }
  const { settings, panel } = opened
  const server = servePanel(panel, {
    hostname: settings.host,
    port: settings.port,
    trustProxy: settings.trustProxy,
  })
  // Job workers, the event dispatcher and webhook delivery run beside the server.
  panel.start()
  console.log(
    `Plinth panel listening on ${server.url.href.replace(/\/$/, '')} (data in ${settings.dataDir}, ready in ${Math.round(performance.now() - startedAt)} ms)`,
  )
  const shutdown = async (signal: string) => {
    console.log(`${signal} received: finishing in-flight requests`)
    const deadline = setTimeout(() => server.forceClose(), shutdownGraceMs)
    await server.stop()
    clearTimeout(deadline)
    console.log('Plinth panel stopped')
    process.exit(0)
  }
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  process.once('SIGINT', () => void shutdown('SIGINT'))
  return { panel, server, settings }
}
