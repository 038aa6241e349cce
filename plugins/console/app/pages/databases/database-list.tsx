// `/databases`: the databases the caller sees, with their server, address, state and size; staff see whose each
// is and filter by customer.

import { api, type Schemas, unwrap } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { CustomerName } from '../../components/customer-name.tsx'
import { formatBytes } from '../../components/format.ts'
import { CustomerFilter } from '../../components/list-filters.tsx'
import { PageHeader } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { Link, useLocation } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { engineLabels, useDatabaseServers } from './queries.ts'
import { ServerName } from './server-name.tsx'

type Database = Schemas['Database']

export function DatabaseListPage() {
  const { staff, can } = useSession()
  const { query } = useLocation()
  const customerId = query.get('customerId') ?? undefined
  const servers = useDatabaseServers()
  const canManage = can('database:manage')
  const newPath = `/databases/new${customerId ? `?customerId=${encodeURIComponent(customerId)}` : ''}`
  return (
    <>
      <PageHeader
        title="Databases"
        subtitle="MariaDB and PostgreSQL databases. Grant access to them with database users."
        actions={
          canManage ? (
            <Link className="button" to={newPath}>
              Create database
            </Link>
          ) : null
        }
      />
      <CustomerFilter />
      <CursorTable<Database>
        queryKey={['databases', 'list', customerId ?? null]}
        load={(cursor) => unwrap(api.GET('/api/v1/databases', { params: { query: { customerId, cursor } } }))}
        caption="Databases"
        rowKey={(database) => database.id}
        empty={
          canManage
            ? 'No databases yet. Create one, then a database user to connect with.'
            : 'No databases yet.'
        }
        columns={[
          {
            header: 'Name',
            cell: (database) => (
              <Link to={`/databases/${encodeURIComponent(database.id)}`}>{database.name}</Link>
            ),
          },
          { header: 'Engine', cell: (database) => engineLabels[database.engine] ?? database.engine },
          ...(servers.size > 0
            ? [
                {
                  header: 'Server',
                  cell: (database: Database) => <ServerName serverId={database.serverId} servers={servers} />,
                },
              ]
            : []),
          {
            header: 'Host and port',
            cell: (database) => (
              <code>
                {database.host}:{database.port}
              </code>
            ),
          },
          { header: 'Status', cell: (database) => <StatusBadge status={database.status} /> },
          ...(staff
            ? [
                {
                  header: 'Customer',
                  cell: (database: Database) => <CustomerName id={database.customerId} />,
                },
              ]
            : []),
          { header: 'Size', cell: (database) => formatBytes(database.sizeBytes) },
        ]}
      />
    </>
  )
}
