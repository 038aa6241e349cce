// What a node's last reconciliation found (what it holds, what was put back, what it holds that the panel does not
// know, left alone), and, for staff who manage nodes, reconciling it now.

import {
  ExplainedProblem,
  Facts,
  formatTime,
  Link,
  unwrap,
  useAction,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Node = Schemas['Node']

/** What each kind of unknown thing is, in words. */
const kinds: Record<string, string> = {
  site: 'a site',
  home: 'a site’s folder without its record',
  'server-block': 'an nginx server block',
  pool: 'a PHP-FPM pool',
}

export function NodeInventory({ node }: { node: Node }) {
  const session = useSession()
  const reconcile = useAction(() =>
    unwrap(api.POST('/api/v1/nodes/{id}/reconcile', { params: { path: { id: node.id } } })),
  )
  const { inventory } = node
  return (
    <>
      {inventory ? (
        <>
          <Facts
            items={[
              ['Last compared', formatTime(inventory.checkedAt)],
              ['Sites it holds', String(inventory.sites)],
              ['Put back then', String(inventory.reapplied)],
            ]}
          />
          {inventory.unknown.length === 0 ? (
            <p>It holds nothing the panel does not know.</p>
          ) : (
            <>
              <p>It holds what the panel does not know (left as it is, never removed):</p>
              <ul className="node-lacks">
                {inventory.unknown.map((item) => (
                  <li key={`${item.kind}:${item.name}`}>
                    {kinds[item.kind] ?? item.kind} <code>{item.name}</code>
                    {item.domain ? <span className="muted"> at {item.domain}</span> : null}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      ) : (
        <p className="empty">Not compared with the panel’s records yet: it is when its agent connects.</p>
      )}
      {session.can('node:manage') ? (
        <>
          <button
            type="button"
            className="button"
            disabled={reconcile.isPending || !node.agent.connected}
            onClick={() => reconcile.mutate(undefined)}
          >
            Compare now
          </button>
          {reconcile.data && session.can('job:read') ? (
            <p>
              <Link to={`/jobs/${reconcile.data.jobId}`}>Follow the comparison</Link>
            </p>
          ) : null}
          {reconcile.error ? <ExplainedProblem error={reconcile.error} explanations={{}} /> : null}
        </>
      ) : null}
    </>
  )
}
