// `/users/:id` (staff): a user's facts, disabling or enabling them, and their API tokens.

import { useQuery } from '@tanstack/react-query'
import { api, unwrap } from '../../api/client.ts'
import { useBrandName } from '../../components/brands.ts'
import { DeleteResource } from '../../components/delete-resource.tsx'
import { formatTime } from '../../components/format.ts'
import { Breadcrumbs, Facts, PageHeader, Section } from '../../components/page.tsx'
import { ErrorNotice, Loading } from '../../components/states.tsx'
import { StatusBadge } from '../../components/status-badge.tsx'
import { Link, navigate } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { JoinTeam } from './join-team.tsx'
import { userKind } from './user-kind.ts'
import { UserStatus } from './user-status.tsx'
import { UserTokens } from './user-tokens.tsx'

export function UserPage({ id }: { id: string }) {
  const session = useSession()
  const brandName = useBrandName()
  const user = useQuery(api.query('/api/v1/users/{id}', { params: { path: { id } } }))
  const breadcrumbs = <Breadcrumbs to="/users" label="Staff and users" />
  if (user.isPending) return <Loading />
  if (user.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="User" />
        <ErrorNotice error={user.error} />
      </>
    )
  const data = user.data
  const self = data.id === session.me.user.id
  return (
    <>
      {breadcrumbs}
      <PageHeader title={data.email} subtitle={userKind(data)} />
      <Section title="Details">
        <Facts
          items={[
            ['E-mail', data.email],
            ['Kind', userKind(data)],
            ['Brand', data.brandId ? brandName(data.brandId) : '—'],
            ['Status', <StatusBadge key="status" status={data.disabledAt ? 'disabled' : 'active'} />],
            ['Disabled', data.disabledAt ? formatTime(data.disabledAt) : '—'],
            ['Created', formatTime(data.createdAt)],
            ['Id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      {session.can('user:manage') ? (
        <Section title="Access">
          {self ? (
            <p className="muted">
              This is you. Staff cannot disable themselves; manage your sessions under{' '}
              <Link to="/account">Your account</Link>.
            </p>
          ) : (
            <UserStatus user={data} />
          )}
        </Section>
      ) : null}
      {data.staffRole === null && !data.disabledAt && session.can('members:manage') ? (
        <Section title="Add to a customer’s team">
          <JoinTeam user={data} />
        </Section>
      ) : null}
      <Section title="API tokens">
        <UserTokens userId={data.id} />
      </Section>
      {session.can('user:manage') && !self ? (
        <Section title="Delete user">
          <DeleteResource
            label="Delete user"
            run={() => unwrap(api.DELETE('/api/v1/users/{id}', { params: { path: { id: data.id } } }))}
            onDeleted={() => navigate('/users')}
          >
            Signs them out everywhere, deletes their API tokens and takes them off every team, at once; what
            they did stays in the activity log. The only owner of a customer’s team cannot be deleted until
            another member owns it.
          </DeleteResource>
        </Section>
      ) : null}
    </>
  )
}
