// `/database-users/:id`: a login's facts, its job followed live after each change, its grants and allowed hosts
// changed (PATCH), its password rotated (the new one shown once), and deleting it.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ConfirmButton,
  CustomerName,
  ErrorNotice,
  Facts,
  formatTime,
  JobProgress,
  Link,
  Loading,
  PageHeader,
  Section,
  StatusBadge,
  unwrap,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { DatabaseUserAccess } from './database-user-access.tsx'
import { engineLabels, useDatabaseServers } from './queries.ts'
import { RotatePassword } from './rotate-password.tsx'
import { ServerName } from './server-name.tsx'

type DatabaseUser = Schemas['DatabaseUser']

export function DatabaseUserDetailPage({ id }: { id: string }) {
  const queries = useQueryClient()
  const { can } = useSession()
  const servers = useDatabaseServers()
  const [deleted, setDeleted] = useState(false)
  const [followed, follow] = useState<string | null>(null)
  const read = api.query('/api/v1/database-users/{id}', { params: { path: { id } } })
  const query = useQuery({ ...read, enabled: !deleted })
  /** Keeps what a change answered (never a password), and follows its job. */
  const changed = ({ password: _password, ...user }: DatabaseUser & { password?: string }) => {
    if (user.jobId) follow(user.jobId)
  }
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/database-users/{id}', { params: { path: { id } } })),
    onSuccess: changed,
  })
  if (deleted)
    return (
      <>
        <PageHeader title="Database user deleted" />
        <p className="notice notice-info" role="status">
          The login was dropped from its server and removed.{' '}
          <Link to="/database-users">Back to database users</Link>
        </p>
      </>
    )
  if (query.isPending) return <Loading />
  if (query.isError)
    return (
      <>
        <PageHeader
          title="Database user"
          subtitle={<Link to="/database-users">Back to database users</Link>}
        />
        <ErrorNotice error={query.error} />
      </>
    )
  const user = query.data
  const busy = user.status === 'provisioning' || user.status === 'deleting'
  const jobId = followed ?? (busy ? user.jobId : null)
  const manage = can('database:manage') && user.status !== 'deleting'
  return (
    <>
      <PageHeader
        title={`Database user ${user.username}`}
        subtitle={<Link to="/database-users">Back to database users</Link>}
        actions={
          manage ? (
            <ConfirmButton
              confirmLabel="Confirm delete"
              onConfirm={() => remove.mutate()}
              disabled={remove.isPending}
            >
              Delete database user
            </ConfirmButton>
          ) : null
        }
      />
      {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      {jobId ? (
        <Section title={user.status === 'deleting' ? 'Deleting' : 'Applying on the server'}>
          <JobProgress
            key={jobId}
            jobId={jobId}
            onFinished={(job) => {
              if (user.status === 'deleting' && job.status === 'succeeded') {
                // Gone: its own read would only answer 404 now.
                setDeleted(true)
                queries.removeQueries({ queryKey: read.queryKey })
              }
            }}
          />
        </Section>
      ) : null}
      {user.drift ? (
        <div className="notice notice-error" role="alert">
          <p>
            <strong>The server’s grants differ from the panel’s</strong> (found{' '}
            {formatTime(user.drift.detectedAt)}
            ): the server grants {user.drift.onServer.length} of the customer’s databases
            {user.drift.unknown > 0 ? ` and ${user.drift.unknown} other databases` : ''}. Saving the grants
            below applies the panel’s again.
          </p>
        </div>
      ) : null}
      <Section title="Details">
        <Facts
          items={[
            ['User name', <code key="username">{user.username}</code>],
            ['Engine', engineLabels[user.engine] ?? user.engine],
            ['Server', <ServerName key="server" serverId={user.serverId} servers={servers} />],
            ['Host', <code key="host">{user.host}</code>],
            ['Port', String(user.port)],
            ['Status', <StatusBadge key="status" status={user.status} />],
            ['Locked', user.locked ? 'Yes: its customer is suspended' : 'No'],
            ['Allowed hosts', user.allowedHosts.join(', ') || 'None'],
            ['Customer', <CustomerName key="customer" id={user.customerId} />],
            ['Created', formatTime(user.createdAt)],
          ]}
        />
      </Section>
      <DatabaseUserAccess user={user} manage={manage} onChanged={changed} />
      {manage ? <RotatePassword user={user} onRotated={changed} /> : null}
    </>
  )
}
