// How a node's agent stands, in words: connected or not, and when it last asked for work.

import { formatTime, StatusBadge } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

/** When the agent was last seen; one that stopped saying so is no longer counted as seen, but its report stays. */
function lastSeen(agent: Schemas['Node']['agent']): string {
  if (agent.lastSeenAt) return `last seen ${formatTime(agent.lastSeenAt)}`
  return agent.capabilities ? 'stopped (it said so)' : 'never seen'
}

export function AgentState({ agent }: { agent: Schemas['Node']['agent'] }) {
  return (
    <>
      <StatusBadge status={agent.connected ? 'connected' : 'disconnected'} />{' '}
      <span className="muted">{lastSeen(agent)}</span>
    </>
  )
}
