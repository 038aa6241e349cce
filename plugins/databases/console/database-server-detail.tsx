// `/database-servers/:id` (platform staff): a server's facts, and changing it. Only the fields that differ are
// sent, so a rename does not re-test the connection; new connection details are tested before they are kept.

import { useQuery } from '@tanstack/react-query'
import {
  changedFields,
  DeleteResource,
  ErrorNotice,
  Facts,
  FormFooter,
  formatCount,
  formatTime,
  Link,
  Loading,
  navigate,
  numberOf,
  PageHeader,
  Section,
  StatusBadge,
  TextField,
  textOf,
  unwrap,
  useEditForm,
  useSession,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { engineLabels } from './queries.ts'
import { ServerConnectionFields, ServerPlacementFields } from './server-fields.tsx'

type DatabaseServer = Schemas['DatabaseServer']
type Body = Schemas['UpdateDatabaseServerBody']

/** The fields of the form that differ from the server as it is (a node's own has no connection fields). */
function changes(server: DatabaseServer, data: FormData): Body {
  const body = changedFields<Body>(server, {
    name: textOf(data, 'name') ?? '',
    ...(server.nodeId === null
      ? {
          host: textOf(data, 'host') ?? '',
          port: numberOf(data, 'port'),
          username: textOf(data, 'username') ?? '',
        }
      : {}),
    capacity: numberOf(data, 'capacity') ?? null,
    status: textOf(data, 'status') as Body['status'],
  })
  // The password is never shown, so a typed one is always new.
  const password = String(data.get('password') ?? '')
  if (password !== '') body.password = password
  return body
}

export function DatabaseServerDetailPage({ id }: { id: string }) {
  const { can } = useSession()
  const query = useQuery(api.query('/api/v1/database-servers/{id}', { params: { path: { id } } }))
  const form = useEditForm(
    (data) => {
      const server = query.data as DatabaseServer
      const body = changes(server, data)
      if (Object.keys(body).length === 0) return Promise.resolve(server)
      return unwrap(api.PATCH('/api/v1/database-servers/{id}', { params: { path: { id } }, body }))
    },
    {
      onSaved: (_server, element) => {
        const password = element.querySelector<HTMLInputElement>('input[name="password"]')
        if (password) password.value = ''
      },
    },
  )
  if (query.isPending) return <Loading />
  if (query.isError)
    return (
      <>
        <PageHeader
          title="Database server"
          subtitle={<Link to="/database-servers">Back to database servers</Link>}
        />
        <ErrorNotice error={query.error} />
      </>
    )
  const server = query.data
  return (
    <>
      <PageHeader
        title={`Database server ${server.name}`}
        subtitle={<Link to="/database-servers">Back to database servers</Link>}
      />
      <Section title="Details">
        <Facts
          items={[
            ['Name', server.name],
            ['Engine', engineLabels[server.engine] ?? server.engine],
            ['Host', <code key="host">{server.host}</code>],
            ['Port', String(server.port)],
            ['Administrator', <code key="username">{server.username}</code>],
            [
              'Runs on',
              server.nodeId === null ? (
                'a server staff added'
              ) : (
                <span key="node">
                  its node’s own,{' '}
                  <Link to={`/nodes/${encodeURIComponent(server.nodeId)}`}>{server.nodeId}</Link> (reached
                  through the node; its sites alone connect to it)
                </span>
              ),
            ],
            ['Status', <StatusBadge key="status" status={server.status} />],
            ['Version', server.version],
            [
              'Databases',
              server.capacity === null
                ? `${formatCount(server.databases)} (no limit)`
                : `${formatCount(server.databases)} of ${formatCount(server.capacity)}`,
            ],
            ['Added', formatTime(server.createdAt)],
            ['Changed', formatTime(server.updatedAt)],
          ]}
        />
      </Section>
      {can('database-server:manage') ? (
        <Section title="Change">
          {/* Keyed by the server's version so its fields show what was saved. */}
          <form key={server.updatedAt} onSubmit={form.submit} noValidate>
            <TextField form={form} name="name" label="Name" defaultValue={server.name} autoComplete="off" />
            {server.nodeId === null ? <ServerConnectionFields form={form} current={server} /> : null}
            <ServerPlacementFields form={form} current={server} />
            <p className="muted">
              {server.nodeId === null
                ? 'The engine cannot change. New connection details are tested before they are kept.'
                : 'Its address and administrator are its node’s: they cannot be changed here.'}
            </p>
            {form.result && !form.pending && !form.problem ? (
              <p className="muted" role="status">
                Saved.
              </p>
            ) : null}
            <FormFooter form={form}>Save changes</FormFooter>
          </form>
        </Section>
      ) : null}
      {can('database-server:manage') && server.nodeId === null ? (
        <Section title="Delete server">
          <DeleteResource
            label="Delete database server"
            run={() => unwrap(api.DELETE('/api/v1/database-servers/{id}', { params: { path: { id } } }))}
            onDeleted={() => navigate('/database-servers')}
          >
            Only a server that holds no databases or database users can be deleted. The panel forgets it;
            nothing on the server itself is touched.
          </DeleteResource>
        </Section>
      ) : null}
    </>
  )
}
