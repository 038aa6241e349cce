// Whether a node can serve sites now, as the panel tells it: what the node says of itself (its masters running, or
// why not: a port taken, a program missing) and what only the panel knows (its agent connected, ever, or lately).
// Placement reads it: a node that is not ready receives no new site.

import type { NodeCapabilities, NodeUnreadiness } from './contract.ts'

/** What the panel knows of a node to judge its readiness. */
export interface ReadinessFacts {
  readonly driver: string
  /** Whether its agent called within the last minute (always true for the `local` node). */
  readonly connected: boolean
  /** When its agent last called, or null when it never did (or said, stopping, that it left). */
  readonly seenAt: string | null
  readonly capabilities: NodeCapabilities | null
  /**
   * Whether the panel's own `local` node serves its sites (nginx and PHP-FPM under `SITES_HTTP_PORT`); false when it
   * lays out files only, which needs nothing running, so it is ready before its first report.
   */
  readonly localServes: boolean
}

/**
 * Why the node cannot serve sites now; empty when it can. Only the `agent` driver's nodes have an agent whose calls
 * the panel sees; a node of another plugin's driver that reports nothing is taken as its driver serves it (the driver
 * says, when called, whether it reaches its node).
 */
export function notReadyReasons(facts: ReadinessFacts): NodeUnreadiness[] {
  const local = facts.driver === 'local'
  const agent = facts.driver === 'agent'
  // An agent that stopped gracefully said so (its last call forgotten): it did connect, and reported.
  if (agent && facts.seenAt === null && facts.capabilities !== null)
    return [
      {
        code: 'agent_disconnected',
        message: 'its agent stopped (it said so as it stopped): start `npm run agent` on the node again',
      },
    ]
  if (agent && facts.seenAt === null)
    return [
      {
        code: 'agent_never_connected',
        message:
          'its agent never called the panel: run `npm run agent` on the node with its agent token (docs/nodes.md)',
      },
    ]
  if (agent && !facts.connected)
    return [
      {
        code: 'agent_disconnected',
        message: `its agent has not called the panel since ${facts.seenAt}: is \`npm run agent\` running on the node?`,
      },
    ]
  const { capabilities } = facts
  if (!capabilities) {
    if ((local && !facts.localServes) || (!local && !agent)) return []
    return [
      {
        code: 'not_reported',
        message: local
          ? 'the local node has not said what it runs yet (the panel is starting)'
          : 'the node has not said what it runs yet',
      },
    ]
  }
  if (capabilities.readiness) return capabilities.readiness.ready ? [] : [...capabilities.readiness.reasons]
  // An older agent says no readiness: a node that would serve but lacks nginx or PHP-FPM cannot.
  return capabilities.missing
    .filter((lack) => lack.for === 'serving sites' && (lack.what === 'nginx' || lack.what === 'php-fpm'))
    .map((lack) => ({
      code: 'binary_missing',
      message: `${lack.what} is not installed: \`${capabilities.setup}\` installs it`,
    }))
}
