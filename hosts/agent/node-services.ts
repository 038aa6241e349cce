// The services the node agent offers its sites: the same a panel's local node offers (each plugin adds its own to
// `nodes.services` there). A plugin with a node service adds it here too, so remote nodes offer it.

import { filesNodeService } from '../../plugins/files/contract.ts'
import type { NodeService } from '../../plugins/nodes/contract.ts'
import { type SftpServiceOptions, sftpNodeService } from '../../plugins/sftp/index.ts'
import { shellNodeService } from '../../plugins/shell/index.ts'
import { wordpressNodeService } from '../../plugins/wordpress/contract.ts'

let shell: NodeService | null = null

// The SFTP service keeps a listener and live sessions: one for the agent, made from its settings at start.
let sftp: NodeService | null = null

/** Makes the agent's SFTP service (`SFTP_PORT`, `SFTP_LISTEN`); main.ts calls it before the runtime starts. */
export function configureAgentSftp(options: SftpServiceOptions): void {
  sftp = sftpNodeService(options)
}

/** The node services of the standard plugins. */
export function agentNodeServices(): readonly NodeService[] {
  // The shell service keeps the commands and shells it runs: one for the agent's life.
  shell ??= shellNodeService()
  return [filesNodeService(), wordpressNodeService(), shell, ...(sftp ? [sftp] : [])]
}
