// Changing a node: its name, host name and status (`draining` and `disabled` nodes receive no new sites).

import {
  FormProblem,
  SavedNotice,
  SelectField,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Node = Schemas['Node']

const statusOptions = [
  { value: 'active', label: 'Active: receives new sites' },
  { value: 'draining', label: 'Draining: keeps serving its sites, receives no new ones' },
  { value: 'disabled', label: 'Disabled: out of use, its reports are refused' },
]

export function NodeSettingsForm({ node }: { node: Node }) {
  const form = useEditForm((data) =>
    unwrap(
      api.PATCH('/api/v1/nodes/{id}', {
        params: { path: { id: node.id } },
        body: {
          name: textOf(data, 'name') ?? '',
          hostname: textOf(data, 'hostname') ?? '',
          status: String(data.get('status')) as Node['status'],
        },
      }),
    ),
  )
  return (
    <form onSubmit={form.submit} noValidate>
      <TextField form={form} name="name" label="Name" defaultValue={node.name} required autoComplete="off" />
      <TextField
        form={form}
        name="hostname"
        label="Hostname"
        defaultValue={node.hostname}
        required
        autoComplete="off"
      />
      <SelectField
        form={form}
        name="status"
        label="Status"
        options={statusOptions}
        defaultValue={node.status}
      />
      <p className="hint">The panel never moves sites between nodes: a draining node keeps its sites.</p>
      <FormProblem form={form} />
      <SavedNotice form={form} />
      <SubmitButton form={form}>Save changes</SubmitButton>
    </form>
  )
}
