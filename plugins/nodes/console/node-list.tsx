// `/nodes`: the servers sites run on, whether each can serve sites now and why not, whether their agents are connected
// (read again every 15 s), and their status.

import {
  CursorTable,
  FilterForm,
  Link,
  PageHeader,
  StatusBadge,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { AgentState } from './agent-state.tsx'
import { api, type Schemas } from './api.ts'
import { ReadinessBadge } from './node-readiness.tsx'

type Node = Schemas['Node']
type NodeStatus = Node['status']

/** How often the connected state is read again. */
const refreshMs = 15_000

const statusOptions = [
  { value: '', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'draining', label: 'Draining' },
  { value: 'disabled', label: 'Disabled' },
]

export function NodeList() {
  const session = useSession()
  const { query } = useLocation()
  const status = query.get('status') ?? ''
  return (
    <>
      <PageHeader
        title="Nodes"
        subtitle="The servers sites run on. New sites go to the ready active node with the fewest sites."
        actions={
          session.can('node:manage') ? (
            <Link to="/nodes/new" className="button">
              Add node
            </Link>
          ) : null
        }
      />
      <FilterForm filters={[{ name: 'status', label: 'Status', options: statusOptions, value: status }]} />
      <CursorTable<Node>
        list={api.list('/api/v1/nodes', {
          params: { query: { ...(status ? { status: status as NodeStatus } : {}) } },
        })}
        caption="Nodes"
        rowKey={(node) => node.id}
        // Whether an agent is connected changes by itself: the pages are read again to keep it current.
        refreshMs={refreshMs}
        empty={
          status
            ? 'No node has this status.'
            : 'No nodes. Add one with “Add node” so sites have somewhere to run.'
        }
        columns={[
          {
            header: 'Name',
            cell: (node) => <Link to={`/nodes/${encodeURIComponent(node.id)}`}>{node.name}</Link>,
          },
          { header: 'Hostname', cell: (node) => node.hostname },
          { header: 'Driver', cell: (node) => node.driver },
          { header: 'Status', cell: (node) => <StatusBadge status={node.status} /> },
          { header: 'Ready', cell: (node) => <ReadinessBadge node={node} /> },
          { header: 'Agent', cell: (node) => <AgentState agent={node.agent} /> },
          { header: 'Version', cell: (node) => node.agent.version ?? '—' },
          {
            header: 'Lacks',
            // What it lacks to serve sites and install their applications; its page says how to install it.
            cell: (node) => {
              const missing = node.agent.capabilities?.missing ?? []
              return missing.length === 0 ? 'nothing' : missing.map((lack) => lack.what).join(', ')
            },
          },
        ]}
      />
    </>
  )
}
