// The ceiling's handler served from a process that also holds a panel opened on the same store (its plugins,
// document and metrics, as `npm start` has them; the panel serves nothing here, and its background work is not
// started, or its job workers would take the bench's provisioning from the measured panel). Against the bare ceiling
// it measures what the panel's process costs the same work by existing; against the panel it leaves only the
// panel's own request path.

import { installationPlugins } from '../hosts/plinth-config.ts'
import { settingsFromEnv } from '../hosts/settings.ts'
import { openStandardPanel } from '../hosts/standard-panel.ts'
import { ceilingHandler } from './ceiling.ts'

const settings = settingsFromEnv()
const panel = await openStandardPanel(settings, await installationPlugins(settings), { processMetrics: true })
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: ceilingHandler({ dataDir: settings.dataDir, secret: process.env.PLINTH_SECRET ?? '' }),
})
console.log(`ceiling beside a panel listening on ${server.url.href.replace(/\/$/, '')}`)
process.once('SIGTERM', async () => {
  await server.stop()
  await panel.close()
  process.exit(0)
})
