// How a node's agent stands, in words: connected or not, and when it last asked for work.

import { formatTime, StatusBadge } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

export function AgentState({ agent }: { agent: Schemas['Node']['agent'] }) {
  return (
    <>
      <StatusBadge status={agent.connected ? 'connected' : 'disconnected'} />{' '}
      <span className="muted">
        {agent.lastSeenAt ? `last seen ${formatTime(agent.lastSeenAt)}` : 'never seen'}
      </span>
    </>
  )
}
