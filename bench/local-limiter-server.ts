// The standard server on PostgreSQL with each instance's in-memory rate limiter instead of the limiter shared
// through PostgreSQL: never a setup to deploy (every instance would grant a token its own allowance), only the
// bench's measure of what the shared limiter costs. The same settings, plugins and panel options as `npm start`
// (hosts/standard-panel.ts), with LOG_REQUESTS off; only the limiter differs.

import { createPanel, type Store } from '../core/host.ts'
import { installationPlugins, servePanel, settingsFromEnv } from '../hosts/index.ts'
import { installationStoreOf } from '../hosts/installation-store.ts'
import { createHostLogger } from '../hosts/observability.ts'
import { panelOptionsOf } from '../hosts/standard-panel.ts'

/**
 * The store, saying it is SQLite: createPanel then picks the in-memory limiter and login throttle, which is all
 * `dialect` decides (queries ask the query builder's adapter which engine they run on, as bench/rate-limit-cost.ts
 * relies on too).
 */
const withLocalLimiter = (store: Store): Store =>
  new Proxy(store, { get: (target, name) => (name === 'dialect' ? 'sqlite' : Reflect.get(target, name)) })

const settings = settingsFromEnv()
if (settings.databaseUrl === null) throw new Error('bench/local-limiter-server.ts runs on DATABASE_URL only')
const log = createHostLogger({ level: settings.logLevel })
const { plugins, overrides = [] } = await installationPlugins(settings)
const panel = await createPanel({
  store: withLocalLimiter(await installationStoreOf(settings).open()),
  plugins,
  overrides,
  secret: settings.secret ?? '',
  ...panelOptionsOf(settings),
  logger: log,
  metrics: { token: settings.metricsToken, processMetrics: true },
})
const server = servePanel(panel, { hostname: settings.host, port: settings.port, log })
panel.start()
console.log(`local-limiter panel listening on ${server.url.href.replace(/\/$/, '')}`)
process.once('SIGTERM', async () => {
  await server.stop()
  process.exit(0)
})
