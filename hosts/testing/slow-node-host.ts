// The standalone panel for crash tests: the standard host with the `slow` node driver added, as an embedder would.
// SLOW_NODE_PAUSE_MS (100) is its pause between steps; SLOW_NODE_HOLD names where provisioning waits to be killed.

import { runStandardServer } from '../bun/run-server.ts'
import { standardPlugins } from '../standard-plugins.ts'
import { type HoldPoint, holdPoints, slowNodePlugin } from './slow-node-driver.ts'

const hold = process.env.SLOW_NODE_HOLD || undefined
if (hold !== undefined && !holdPoints.includes(hold as HoldPoint)) {
  console.error(`SLOW_NODE_HOLD must be one of ${holdPoints.join(', ')}, not "${hold}"`)
  process.exit(2)
}
process.env.PORT ||= '0'
await runStandardServer((settings) => [
  ...standardPlugins(settings),
  slowNodePlugin({
    dataDir: settings.dataDir,
    pauseMs: Number(process.env.SLOW_NODE_PAUSE_MS || '100'),
    ...(hold ? { hold: hold as HoldPoint } : {}),
  }),
])
