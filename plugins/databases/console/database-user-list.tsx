// `/database-users`: the logins the caller sees, with their server, grants and state; staff see whose each is
// and filter by customer.

import {
  CursorTable,
  CustomerFilter,
  CustomerName,
  Link,
  PageHeader,
  StatusBadge,
  useLocation,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { engineLabels, useDatabaseServers } from './queries.ts'
import { ServerName } from './server-name.tsx'

type DatabaseUser = Schemas['DatabaseUser']

export function DatabaseUserListPage() {
  const { staff, can } = useSession()
  const { query } = useLocation()
  const customerId = query.get('customerId') ?? undefined
  const servers = useDatabaseServers()
  const canManage = can('database:manage')
  const newPath = `/database-users/new${customerId ? `?customerId=${encodeURIComponent(customerId)}` : ''}`
  return (
    <>
      <PageHeader
        title="Database users"
        subtitle="Logins on the database servers, each with access to some of the customer’s databases."
        actions={
          canManage ? (
            <Link className="button" to={newPath}>
              Create database user
            </Link>
          ) : null
        }
      />
      <CustomerFilter />
      <CursorTable<DatabaseUser>
        list={api.list('/api/v1/database-users', { params: { query: { customerId } } })}
        caption="Database users"
        rowKey={(user) => user.id}
        empty={
          canManage
            ? 'No database users yet. Create one to connect to your databases.'
            : 'No database users yet.'
        }
        columns={[
          {
            header: 'User name',
            cell: (user) => (
              <Link to={`/database-users/${encodeURIComponent(user.id)}`}>{user.username}</Link>
            ),
          },
          { header: 'Engine', cell: (user) => engineLabels[user.engine] ?? user.engine },
          {
            header: 'Server',
            cell: (user) => (
              <ServerName serverId={user.serverId} servers={servers} fallback={`${user.host}:${user.port}`} />
            ),
          },
          {
            header: 'Grants',
            cell: (user) =>
              user.grants.length === 0
                ? 'None'
                : user.grants.length === 1
                  ? '1 database'
                  : `${user.grants.length} databases`,
          },
          {
            header: 'Status',
            cell: (user) => (
              <>
                <StatusBadge status={user.status} />
                {user.locked ? (
                  <>
                    {' '}
                    <StatusBadge status="locked" />
                  </>
                ) : null}
                {user.drift ? (
                  <>
                    {' '}
                    <StatusBadge status="drift" />
                  </>
                ) : null}
              </>
            ),
          },
          ...(staff
            ? [{ header: 'Customer', cell: (user: DatabaseUser) => <CustomerName id={user.customerId} /> }]
            : []),
        ]}
      />
    </>
  )
}
