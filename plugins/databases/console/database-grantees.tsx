// The database users granted on a database. The API lists users by customer and server, not by database, so this
// reads the customer's users on the database's server and keeps those whose grants name it.

import {
  EmptyState,
  ErrorNotice,
  Link,
  Loading,
  Section,
  StatusBadge,
  useSession,
} from '../../console/kit.ts'
import type { Schemas } from './api.ts'
import { useServerUsers } from './queries.ts'

export function DatabaseGrantees({ database }: { database: Schemas['Database'] }) {
  const { can } = useSession()
  const users = useServerUsers(database.customerId, database.serverId)
  const newUser = `/database-users/new?customerId=${encodeURIComponent(database.customerId)}`
  const granted = (users.data ?? []).flatMap((user) => {
    const grant = user.grants.find((item) => item.databaseId === database.id)
    return grant ? [{ user, access: grant.access }] : []
  })
  return (
    <Section
      title="Database users with access"
      actions={
        can('database:manage') ? (
          <Link className="button secondary" to={newUser}>
            Create database user
          </Link>
        ) : null
      }
    >
      {users.isPending ? (
        <Loading />
      ) : users.isError ? (
        <ErrorNotice error={users.error} />
      ) : granted.length === 0 ? (
        <EmptyState>No database user may use this database yet. Create one and grant it access.</EmptyState>
      ) : (
        <table>
          <caption className="visually-hidden">Database users with access to {database.name}</caption>
          <thead>
            <tr>
              <th scope="col">User name</th>
              <th scope="col">Access</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {granted.map(({ user, access }) => (
              <tr key={user.id}>
                <td>
                  <Link to={`/database-users/${encodeURIComponent(user.id)}`}>{user.username}</Link>
                </td>
                <td>{access === 'readwrite' ? 'Read and write' : 'Read only'}</td>
                <td>
                  <StatusBadge status={user.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  )
}
