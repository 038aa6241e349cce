// `/databases/:id`: a database's facts, its job followed live while it is made or removed, the customer's
// database users granted on it, and deleting it.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import {
  ConfirmButton,
  CustomerName,
  ErrorNotice,
  Facts,
  formatBytes,
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
import { SiteName } from '../../sites/console/contract.ts'
import { api, type Schemas } from './api.ts'
import { DatabaseGrantees } from './database-grantees.tsx'
import { engineLabels, useDatabaseServers } from './queries.ts'
import { ServerName } from './server-name.tsx'

type Database = Schemas['Database']

export function DatabaseDetailPage({ id }: { id: string }) {
  const queries = useQueryClient()
  const { can } = useSession()
  const servers = useDatabaseServers()
  const [deleted, setDeleted] = useState(false)
  const read = api.query('/api/v1/databases/{id}', { params: { path: { id } } })
  const database = useQuery({ ...read, enabled: !deleted })
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/databases/{id}', { params: { path: { id } } })),
  })
  if (deleted)
    return (
      <>
        <PageHeader title="Database deleted" />
        <p className="notice notice-info" role="status">
          The database was dropped from its server and removed. <Link to="/databases">Back to databases</Link>
        </p>
      </>
    )
  if (database.isPending) return <Loading />
  if (database.isError)
    return (
      <>
        <PageHeader title="Database" subtitle={<Link to="/databases">Back to databases</Link>} />
        <ErrorNotice error={database.error} />
      </>
    )
  const db: Database = database.data
  const busy = db.status === 'provisioning' || db.status === 'deleting'
  const onJobFinished = (job: { status: string }) => {
    if (db.status === 'deleting' && job.status === 'succeeded') {
      // Gone: its own read would only answer 404 now.
      setDeleted(true)
      queries.removeQueries({ queryKey: read.queryKey })
    }
  }
  return (
    <>
      <PageHeader
        title={`Database ${db.name}`}
        subtitle={<Link to="/databases">Back to databases</Link>}
        actions={
          can('database:manage') && db.status !== 'deleting' ? (
            <ConfirmButton
              confirmLabel="Confirm delete"
              onConfirm={() => remove.mutate()}
              disabled={remove.isPending}
            >
              Delete database
            </ConfirmButton>
          ) : null
        }
      />
      {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      {busy && db.jobId ? (
        <Section title={db.status === 'deleting' ? 'Deleting' : 'Creating on the server'}>
          <JobProgress key={db.jobId} jobId={db.jobId} onFinished={onJobFinished} />
        </Section>
      ) : null}
      <Section title="Details">
        <Facts
          items={[
            ['Name on the server', <code key="name">{db.name}</code>],
            ['Engine', engineLabels[db.engine] ?? db.engine],
            ['Server', <ServerName key="server" serverId={db.serverId} servers={servers} />],
            ['Host', <code key="host">{db.host}</code>],
            ['Port', String(db.port)],
            ['Status', <StatusBadge key="status" status={db.status} />],
            ['Customer', <CustomerName key="customer" id={db.customerId} />],
            ['Site', db.siteId ? <SiteName key="site" id={db.siteId} /> : 'None'],
            [
              'Size',
              db.sizeMeasuredAt
                ? `${formatBytes(db.sizeBytes)} (measured ${formatTime(db.sizeMeasuredAt)})`
                : 'Not measured yet',
            ],
            ['Created', formatTime(db.createdAt)],
          ]}
        />
      </Section>
      <DatabaseGrantees database={db} />
    </>
  )
}
