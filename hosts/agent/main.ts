// `npm run agent`: the node agent, installed on each node (docs/nodes.md). It runs the node's own nginx and PHP-FPM
// for its sites and dials the panel for commands; SIGTERM stops asking for work once the commands under way are
// done, and leaves the sites served (the masters keep running for the next start of the agent).

import { kernelVersion } from '../../core/host.ts'
import { createSiteRuntime } from '../../plugins/nodes/runtime/create-site-runtime.ts'
import { AgentRefused, startAgent } from './agent-loop.ts'
import { AgentSettingsError, agentSettingsFromEnv } from './agent-settings.ts'
import { agentNodeServices, configureAgentSftp } from './node-services.ts'

const log = (fields: Record<string, unknown>, message: string) =>
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields, msg: message })}\n`)

let settings: ReturnType<typeof agentSettingsFromEnv>
try {
  settings = agentSettingsFromEnv()
} catch (error) {
  if (!(error instanceof AgentSettingsError)) throw error
  for (const problem of error.problems) process.stderr.write(`${problem}\n`)
  process.exit(2)
}
configureAgentSftp({ port: settings.sftpPort, listen: settings.sftpListen })
const runtime = createSiteRuntime({
  dataDir: settings.dataDir,
  httpPort: settings.httpPort,
  httpsPort: settings.httpsPort,
  services: agentNodeServices,
})
const capabilities = await runtime.capabilities()
log(
  { dataDir: settings.dataDir, httpPort: settings.httpPort, ...capabilities },
  `serving sites on port ${settings.httpPort} (${capabilities.mode})`,
)
const agent = startAgent(settings, runtime, kernelVersion, log)
// The masters start once the panel took the token (a refused agent leaves nothing running), so sites served before
// a restart of the agent are served again at once, not at their next change.
void agent.connected
  .then(() => runtime.start())
  .catch((error: unknown) => log({ err: String(error) }, 'could not start serving'))
// What the node's services keep running (the SFTP server on SFTP_PORT), once the panel took the token too.
const services = agent.connected.then(() =>
  runtime.startServices((level, fields, message) => log({ level, ...fields }, message)),
)
services.catch(() => {})
const stop = async (signal: string) => {
  log({ signal }, `${signal} received: finishing the commands under way`)
  await agent.stop()
  await (await services.catch(() => async () => {}))()
  process.exit(0)
}
process.once('SIGTERM', () => void stop('SIGTERM'))
process.once('SIGINT', () => void stop('SIGINT'))
try {
  await agent.done
} catch (error) {
  if (error instanceof AgentRefused) {
    process.stderr.write(`${error.message}\n`)
    process.exit(3)
  }
  throw error
}
