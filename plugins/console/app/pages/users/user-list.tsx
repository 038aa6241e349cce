// `/users` (staff): the users the caller sees: platform staff everyone, brand staff their brand's staff and their
// customers' members. The API offers no search or filter on this list.

import { api, type Schemas } from '../../api/client.ts'
import { useBrandName } from '../../components/brands.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { formatTime } from '../../components/format.ts'
import { PageHeader } from '../../components/page.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { Link } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { userKind } from './user-kind.ts'

type User = Schemas['User']

export function UserList() {
  const session = useSession()
  const brandName = useBrandName()
  const canCreate = session.can('user:manage')
  return (
    <>
      <PageHeader
        title="Staff and users"
        subtitle="Staff run the panel; customer users sign in to the portal and work on the teams they are on."
        actions={
          canCreate ? (
            <Link className="button users-create" to="/users/new">
              Create user
            </Link>
          ) : null
        }
      />
      <CursorTable<User>
        list={api.list('/api/v1/users')}
        caption="Staff and users"
        rowKey={(user) => user.id}
        empty={canCreate ? 'No users yet. Create one, then add them to a customer’s team.' : 'No users yet.'}
        columns={[
          {
            header: 'E-mail',
            cell: (user) => <Link to={`/users/${encodeURIComponent(user.id)}`}>{user.email}</Link>,
          },
          { header: 'Kind', cell: (user) => userKind(user) },
          { header: 'Brand', cell: (user) => (user.brandId ? brandName(user.brandId) : '—') },
          {
            header: 'Status',
            cell: (user) => <StatusBadge status={user.disabledAt ? 'disabled' : 'active'} />,
          },
          { header: 'Created', cell: (user) => formatTime(user.createdAt) },
        ]}
      />
    </>
  )
}
