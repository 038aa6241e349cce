// The node wing's door: what hosts run on a node. The panel's local node and the agent (`npm run agent`) are both a
// node (node.ts) made of the site runtime and the node modules the installation's plugins declare; the agent dials
// the panel for its commands. Nothing here imports the panel's kernel.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type AgentLog, type RunningAgent, startAgent } from './agent/agent-loop.ts'
import { agentNode, codeRoot } from './agent/agent-node.ts'
import type { AgentSettings } from './agent/agent-settings.ts'
import { createNode, type NodeModuleEntry, type PlinthNode } from './node.ts'

export { AgentRefused } from './agent/agent-loop.ts'
export { type AgentSettings, AgentSettingsError, agentSettingsFromEnv } from './agent/agent-settings.ts'
export type { AgentModule } from './agent/protocol.ts'
export { type KeptServing, keepServing, readinessEveryMs } from './keep-serving.ts'
export { SetupError, setupNode } from './setup.ts'
export { codeRoot, createNode, type NodeModuleEntry, type PlinthNode }

/** The version of this install, as the agent reports it (the package's). */
export const nodeVersion: string = JSON.parse(readFileSync(join(codeRoot, 'package.json'), 'utf8')).version

/** A running agent, and the node it drives. */
export interface NodeAgent extends RunningAgent {
  readonly node: PlinthNode
}

/**
 * Runs the node agent: a node over `settings.dataDir` serving on its ports, dialling the panel for commands. Once the
 * panel took its token, the masters start (sites served before a restart of the agent are served again at once, not
 * at their next change) and so do the services' servers. `stop()` finishes the commands under way and stops the
 * services' listeners; the masters (nginx, PHP-FPM, MariaDB) keep serving for the next start.
 */
export function runNodeAgent(
  settings: AgentSettings,
  env: Readonly<Record<string, string | undefined>>,
  log: AgentLog,
): NodeAgent {
  const node = createNode({
    dataDir: settings.dataDir,
    httpPort: settings.httpPort,
    httpsPort: settings.httpsPort,
    panelHost: new URL(settings.panelUrl).hostname,
    env,
  })
  const driven = agentNode(node, log)
  const agent = startAgent(settings, driven, nodeVersion, log)
  return {
    ...agent,
    node,
    async stop() {
      await agent.stop()
      await driven.stopServices()
    },
  }
}
