// The standalone panel for crash tests: hosts/bun/main.ts's standard panel plus the `slow` node driver.
// SLOW_NODE_PAUSE_MS (100) is its pause between steps; SLOW_NODE_HOLD names where provisioning waits to be killed.

import { servePanel } from '../bun/serve.ts'
import { openStandardPanel, settingsFromEnv, standardPlugins } from '../standard-panel.ts'
import { type HoldPoint, holdPoints, slowNodePlugin } from './slow-node-driver.ts'

const hold = process.env.SLOW_NODE_HOLD || undefined
if (hold !== undefined && !holdPoints.includes(hold as HoldPoint)) {
  console.error(`SLOW_NODE_HOLD must be one of ${holdPoints.join(', ')}, not "${hold}"`)
  process.exit(2)
}
const settings = settingsFromEnv()
const panel = await openStandardPanel(settings, [
  ...standardPlugins(settings),
  slowNodePlugin({
    dataDir: settings.dataDir,
    pauseMs: Number(process.env.SLOW_NODE_PAUSE_MS || '100'),
    ...(hold ? { hold: hold as HoldPoint } : {}),
  }),
])
const server = servePanel(panel, { hostname: '127.0.0.1', port: Number(process.env.PORT || '0') })
panel.start()
console.log(
  `Plinth panel listening on ${server.url.href.replace(/\/$/, '')} (slow node driver, hold ${hold})`,
)
