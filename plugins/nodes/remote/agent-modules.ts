// The node modules as agents are told of them: each by the file that declares it, relative to the install's root,
// which is the same on the panel and on its nodes (the agent runs the same install).

import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from '../../../core/index.ts'
import type { NodeModuleEntry } from '../contract.ts'
import type { AgentModule } from '../node/agent/protocol.ts'
import { codeRoot } from '../node/index.ts'

/**
 * The modules agents load. A module declared outside the install (an embedder's own file elsewhere) runs on the local
 * node only: agents could not load it, and the log says so once.
 */
export function agentModulesOf(entries: readonly NodeModuleEntry[], log: Logger): AgentModule[] {
  const modules: AgentModule[] = []
  for (const { module } of entries) {
    const source = module.source.startsWith('file:') ? relative(codeRoot, fileURLToPath(module.source)) : ''
    if (source === '' || source.startsWith('..') || source.startsWith('/')) {
      log.warn(
        { module: module.name, source: module.source },
        `the node module ${module.name} is declared outside the install: remote nodes do not run it`,
      )
      continue
    }
    modules.push({ name: module.name, source })
  }
  return modules
}
