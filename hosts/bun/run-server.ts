// The standard host: read the settings, open the installation, serve it, stop gracefully on SIGTERM (once, however
// many arrive). `npm start` runs it; an embedder's own entry point may too, with a plugin list of its own.

import type { Panel } from '../../core/host.ts'
import { createHostLogger, type HostLogger, requestLogObserver } from '../observability.ts'
import { type Installation, installationPlugins, type PluginList } from '../plinth-config.ts'
import { redactedUrl, SettingsError, type StandardSettings, settingsFromEnv } from '../settings.ts'
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
  /** The JSON-lines logger on stdout every log line of the server goes through. */
  readonly log: HostLogger
}

/**
 * Serves the installation the environment describes (docs/operators.md): logs JSON lines on stdout (its URL first,
 * then a line per request unless LOG_REQUESTS=0, and every failure with its ids), and exits 0 after SIGTERM or
 * SIGINT once in-flight requests are done. A bad setting, PLINTH_CONFIG or plugin list is reported on stderr, a
 * line each, and the process exits 2. `plugins` gives the installation's plugins instead of PLINTH_CONFIG.
 */
export async function runStandardServer(
  plugins?: (settings: StandardSettings) => PluginList | Installation,
): Promise<StandardServer> {
  const startedAt = performance.now()
  let opened: { settings: StandardSettings; panel: Panel; log: HostLogger }
  try {
    const settings = settingsFromEnv()
    const log = createHostLogger({ level: settings.logLevel })
    const list = plugins ? plugins(settings) : await installationPlugins(settings)
    const panel = await openStandardPanel(settings, list, {
      logger: log,
      ...(settings.logRequests ? { observe: requestLogObserver(log) } : {}),
      processMetrics: true,
    })
    opened = { settings, panel, log }
  } catch (error) {
    return reportStartupFailure(error)
  }
  const { settings, panel, log } = opened
  let server: RunningServer
  try {
    server = servePanel(panel, {
      hostname: settings.host,
      port: settings.port,
      trustedProxies: settings.trustedProxies,
      log,
    })
  } catch (error) {
    await panel.close()
    return reportStartupFailure(
      new SettingsError([
        `PORT: cannot listen on ${settings.host}:${settings.port} (${(error as Error).message.replace(/\s*Is port \d+ in use\?$/, '')}): is another program, or another panel, using it?`,
      ]),
    )
  }
  // Job workers, the event dispatcher and webhook delivery run beside the server.
  panel.start()
  const url = server.url.href.replace(/\/$/, '')
  const readyMs = Math.round(performance.now() - startedAt)
  // A log line like the others, whose message still says where the panel listens (scripts wait for it).
  log.info(
    {
      url,
      dataDir: settings.dataDir,
      ...(settings.databaseUrl ? { database: redactedUrl(settings.databaseUrl) } : {}),
      ...(settings.databaseSchema ? { schema: settings.databaseSchema } : {}),
      readyMs,
      metrics: settings.metricsToken ? 'token' : 'loopback',
    },
    `Plinth panel listening on ${url} (data in ${settings.databaseUrl ? `${redactedUrl(settings.databaseUrl)}${settings.databaseSchema ? ` schema ${settings.databaseSchema}` : ''}` : settings.dataDir}, ready in ${readyMs} ms)`,
  )
  let stopping = false
  const shutdown = async (signal: string) => {
    // systemd signals the whole group (npm, which passes its signal on, and bun), and a terminal's Ctrl-C too: a
    // second signal during the stop is the same request again, never a reason to die by signal mid-way.
    if (stopping) {
      log.info({ signal }, `${signal} received again: already stopping`)
      return
    }
    stopping = true
    const stopAt = performance.now()
    log.info({ signal }, `${signal} received: finishing in-flight requests`)
    // Held from the start: once the store's connections are closed nothing else may keep the process alive, and
    // it would end quietly in the middle of the shutdown, before its last line is written.
    const keepAlive = setTimeout(() => process.exit(0), shutdownGraceMs + 5_000)
    const deadline = setTimeout(() => server.forceClose(), shutdownGraceMs)
    await server.stop()
    clearTimeout(deadline)
    log.info({ stopMs: Math.round(performance.now() - stopAt) }, 'Plinth panel stopped')
    await log.end()
    clearTimeout(keepAlive)
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  return { panel, server, settings, log }
}
