// `/database-servers` (platform staff): the MariaDB and PostgreSQL servers databases are placed on, with how full
// each is.

import { CursorTable, formatCount, Link, PageHeader, StatusBadge, useSession } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { engineLabels } from './queries.ts'

type DatabaseServer = Schemas['DatabaseServer']

export function DatabaseServerListPage() {
  const { can } = useSession()
  const canManage = can('database-server:manage')
  return (
    <>
      <PageHeader
        title="Database servers"
        subtitle="New databases go to the active server of their engine with room and the fewest databases."
        actions={
          canManage ? (
            <Link className="button" to="/database-servers/new">
              Add database server
            </Link>
          ) : null
        }
      />
      <CursorTable<DatabaseServer>
        list={api.list('/api/v1/database-servers')}
        caption="Database servers"
        rowKey={(server) => server.id}
        empty={
          canManage
            ? 'No database server yet. Add a MariaDB or PostgreSQL server so customers can create databases.'
            : 'No database server yet.'
        }
        columns={[
          {
            header: 'Name',
            cell: (server) => (
              <Link to={`/database-servers/${encodeURIComponent(server.id)}`}>{server.name}</Link>
            ),
          },
          { header: 'Engine', cell: (server) => engineLabels[server.engine] ?? server.engine },
          { header: 'Host', cell: (server) => <code>{server.host}</code> },
          { header: 'Port', cell: (server) => String(server.port) },
          {
            header: 'Node',
            // A node's own server serves that node's sites alone.
            cell: (server) =>
              server.nodeId === null ? (
                '—'
              ) : (
                <Link to={`/nodes/${encodeURIComponent(server.nodeId)}`}>its node’s own</Link>
              ),
          },
          { header: 'Status', cell: (server) => <StatusBadge status={server.status} /> },
          {
            header: 'Databases',
            cell: (server) =>
              server.capacity === null
                ? `${formatCount(server.databases)} (no limit)`
                : `${formatCount(server.databases)} of ${formatCount(server.capacity)}`,
          },
          { header: 'Version', cell: (server) => server.version },
        ]}
      />
    </>
  )
}
