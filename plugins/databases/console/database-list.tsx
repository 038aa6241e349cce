// `/databases`: the databases the caller sees, with their server, address, state and size; staff see whose each
// is and filter by customer.

import {
  CursorTable,
  CustomerFilter,
  customerColumn,
  formatBytes,
  Link,
  PageHeader,
  StatusBadge,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { engineLabels, useDatabaseServers } from './queries.ts'
import { ServerName } from './server-name.tsx'

type Database = Schemas['Database']

export function DatabaseListPage() {
  const { can } = useSession()
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
        list={api.list('/api/v1/databases', { params: { query: { customerId } } })}
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
          customerColumn,
          { header: 'Size', cell: (database) => formatBytes(database.sizeBytes) },
        ]}
      />
    </>
  )
}
