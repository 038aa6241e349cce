// `/nodes`: the servers sites run on, whether their agents are connected (read again every 15 s), and their status.

import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { FilterForm } from '../../components/list-filters.tsx'
import { PageHeader } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { Link, useLocation } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { AgentState } from './agent-state.tsx'

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
  const queries = useQueryClient()
  const { query } = useLocation()
  const status = query.get('status') ?? ''
  // The table's pages are one infinite query; reading them again keeps "connected" current.
  useEffect(() => {
    const timer = setInterval(
      () => void queries.invalidateQueries({ queryKey: ['nodes', 'list'] }),
      refreshMs,
    )
    return () => clearInterval(timer)
  }, [queries])
  return (
    <>
      <PageHeader
        title="Nodes"
        subtitle="The servers sites run on. New sites go to the active node with the fewest sites."
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
        queryKey={['nodes', 'list', status]}
        load={(cursor) =>
          unwrap(
            api.GET('/api/v1/nodes', {
              params: { query: { cursor, ...(status ? { status: status as NodeStatus } : {}) } },
            }),
          )
        }
        caption="Nodes"
        rowKey={(node) => node.id}
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
          { header: 'Agent', cell: (node) => <AgentState agent={node.agent} /> },
          { header: 'Version', cell: (node) => node.agent.version ?? '—' },
        ]}
      />
    </>
  )
}
