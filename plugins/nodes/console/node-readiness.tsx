// Whether a node can serve sites now, in words: ready, or not ready with each reason (its agent never connected, its
// sites' port taken by another program, nginx missing), as `GET /nodes` says it.

import { StatusBadge } from '../../console/kit.ts'
import type { Schemas } from './api.ts'

type Node = Schemas['Node']

/** The badge, and the first reason beside it (the list's cell). */
export function ReadinessBadge({ node }: { node: Pick<Node, 'ready' | 'notReady'> }) {
  const [first] = node.notReady
  return (
    <>
      <StatusBadge status={node.ready ? 'ready' : 'not ready'} />
      {first ? <span className="muted"> {first.message}</span> : null}
    </>
  )
}

/** The badge and every reason with its code (the node's page). */
export function Readiness({ node }: { node: Pick<Node, 'ready' | 'notReady'> }) {
  if (node.ready)
    return (
      <p data-testid="node-readiness" data-ready="true">
        <StatusBadge status="ready" /> It serves its sites and receives new ones (while active).
      </p>
    )
  return (
    <div data-testid="node-readiness" data-ready="false">
      <p>
        <StatusBadge status="not ready" /> It receives no new site until it is ready:
      </p>
      <ul className="node-lacks">
        {node.notReady.map((reason) => (
          <li key={reason.code}>
            {reason.message} <span className="muted">({reason.code})</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
