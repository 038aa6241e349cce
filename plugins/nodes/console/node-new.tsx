// `/nodes/new`: platform staff add a node; the answer's agent token is shown once, with the command that starts
// the agent on the node.

import {
  Breadcrumbs,
  FormProblem,
  Link,
  PageHeader,
  Section,
  SelectField,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { AgentToken } from './agent-command.tsx'
import { api } from './api.ts'
import { useDrivers } from './use-drivers.ts'

export function NodeNew() {
  const drivers = useDrivers()
  const form = useApiForm((data) =>
    unwrap(
      api.POST('/api/v1/nodes', {
        body: {
          // Sent even when empty, so the API's refusal names the field.
          name: textOf(data, 'name') ?? '',
          hostname: textOf(data, 'hostname') ?? '',
          driver: String(data.get('driver') ?? ''),
        },
      }),
    ),
  )
  const created = form.result
  const driverOptions = (drivers.data ?? []).map((driver) => ({ value: driver.name, label: driver.name }))
  const driverHint = drivers.isError
    ? 'The installed drivers could not be read.'
    : [
        ...(drivers.data ?? []).map((driver) => `${driver.name}: ${driver.description}`),
        'Fixed once the node exists.',
      ].join(' ')
  return (
    <>
      <Breadcrumbs to="/nodes" label="Nodes" here="Add node" />
      <PageHeader title="Add node" subtitle="Register a server that sites can be placed on." />
      {created ? (
        <Section title={`Node ${created.name} added`}>
          <AgentToken driver={created.driver} token={created.agentToken} />
          <p>
            <Link to={`/nodes/${encodeURIComponent(created.id)}`} className="button">
              Open node {created.name}
            </Link>
          </p>
        </Section>
      ) : (
        <Section title="Node">
          <form onSubmit={form.submit} noValidate>
            <TextField
              form={form}
              name="name"
              label="Name"
              hint="Letters, digits, “.”, “_” and “-”, unique (fra-1)."
              required
              autoComplete="off"
            />
            <TextField
              form={form}
              name="hostname"
              label="Hostname"
              hint="The server’s host name or IP address (fra-1.example.net); no scheme or port."
              required
              autoComplete="off"
            />
            {drivers.isPending ? (
              <p className="muted">Loading drivers…</p>
            ) : (
              <SelectField
                form={form}
                name="driver"
                label="Driver"
                hint={driverHint}
                options={[{ value: '', label: 'Choose a driver' }, ...driverOptions]}
                defaultValue={driverOptions.some((option) => option.value === 'agent') ? 'agent' : ''}
                required
              />
            )}
            <FormProblem form={form} />
            <SubmitButton form={form}>Add node</SubmitButton>
          </form>
        </Section>
      )}
    </>
  )
}
