// `/database-servers/new` (platform staff): adds a server. The panel connects as the administrator given and checks
// it may create databases and users before keeping anything; each failure comes back as its own refusal.

import {
  FormFooter,
  Link,
  navigate,
  numberOf,
  PageHeader,
  Section,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { EngineField } from './engine-field.tsx'
import { ServerConnectionFields, ServerPlacementFields } from './server-fields.tsx'

type Body = Schemas['CreateDatabaseServerBody']

export function DatabaseServerNewPage() {
  const form = useApiForm(
    (data) => {
      const body: Body = {
        name: textOf(data, 'name') ?? '',
        engine: (textOf(data, 'engine') ?? '') as Body['engine'],
        host: textOf(data, 'host') ?? '',
        port: numberOf(data, 'port') as number,
        username: textOf(data, 'username') ?? '',
        // Not trimmed: a password is what it is.
        password: String(data.get('password') ?? ''),
        status: (textOf(data, 'status') ?? 'active') as Body['status'],
      }
      const capacity = numberOf(data, 'capacity')
      if (capacity !== undefined) body.capacity = capacity
      return unwrap(api.POST('/api/v1/database-servers', { body }))
    },
    {
      onSuccess: (server) => {
        navigate(`/database-servers/${encodeURIComponent(server.id)}`)
      },
    },
  )
  return (
    <>
      <PageHeader
        title="Add database server"
        subtitle={<Link to="/database-servers">Back to database servers</Link>}
      />
      <Section title="New database server">
        <form onSubmit={form.submit} noValidate>
          <TextField
            form={form}
            name="name"
            label="Name"
            autoComplete="off"
            spellCheck={false}
            hint="Letters, digits, dots, underscores and hyphens (db-1)."
          />
          <EngineField form={form} />
          <ServerConnectionFields form={form} />
          <ServerPlacementFields form={form} />
          <p className="muted">
            The panel connects to the server now, and keeps it only if it may work there.
          </p>
          <FormFooter form={form}>Add database server</FormFooter>
        </form>
      </Section>
    </>
  )
}
