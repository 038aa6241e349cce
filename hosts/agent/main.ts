// `npm run agent`: the node agent, installed on each node (docs/nodes.md); `npm run agent -- setup` installs what
// the node needs first. It runs the node's own nginx and PHP-FPM
// for its sites, and the node modules the panel's plugins declare, and dials the panel for commands; SIGTERM stops
// asking for work once the commands under way are done, and leaves the sites served (the masters keep running for
// the next start of the agent). It loads nothing of the panel's kernel: only the node wing's door.

import {
  AgentRefused,
  AgentSettingsError,
  agentSettingsFromEnv,
  codeRoot,
  runNodeAgent,
  SetupError,
  setupNode,
} from '../../plugins/nodes/node/index.ts'

const log = (fields: Record<string, unknown>, message: string) =>
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields, msg: message })}\n`)

// `npm run agent -- setup`: install from Debian what this node needs, then stop (no panel needed for it).
if (process.argv[2] === 'setup') {
  try {
    for (const line of await setupNode({ installRoot: codeRoot })) process.stdout.write(`${line}\n`)
    process.exit(0)
  } catch (error) {
    if (!(error instanceof SetupError)) throw error
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
}

let settings: ReturnType<typeof agentSettingsFromEnv>
try {
  settings = agentSettingsFromEnv()
} catch (error) {
  if (!(error instanceof AgentSettingsError)) throw error
  for (const problem of error.problems) process.stderr.write(`${problem}\n`)
  process.exit(2)
}
const agent = runNodeAgent(settings, process.env, log)
const capabilities = await agent.node.runtime.capabilities()
log(
  { dataDir: settings.dataDir, httpPort: settings.httpPort, ...capabilities },
  `serving sites on port ${settings.httpPort} (${capabilities.mode})`,
)
let stopping = false
const stop = async (signal: string) => {
  // A second signal (systemd signals the whole group) changes nothing: the first stop goes on to its end.
  if (stopping) return
  stopping = true
  log({ signal }, `${signal} received: finishing the commands under way`)
  await agent.stop()
  process.exit(0)
}
process.on('SIGTERM', () => void stop('SIGTERM'))
process.on('SIGINT', () => void stop('SIGINT'))
try {
  await agent.done
} catch (error) {
  if (error instanceof AgentRefused) {
    process.stderr.write(`${error.message}\n`)
    process.exit(3)
  }
  throw error
}
