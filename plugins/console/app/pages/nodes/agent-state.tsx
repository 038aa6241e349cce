// How a node's agent stands, in words: connected or not, and when it last asked for work.

import type { Schemas } from '../../api/client.ts'
import { formatTime } from '../../components/format.ts'
import { StatusBadge } from '../../components/status-badge.tsx'

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
